// A page section not built yet (uikit/lazy.py, Lazy): an empty box of the section's height that
// tells the server once, the first time it comes within a quarter screen of being seen, so the server
// builds the section then and puts it in the box's place. The page scrolls inside the template's
// main area, which clips what lies below it: the observer watches that area (the nearest scrolling
// ancestor, through Bokeh's shadow roots), or the browser's viewport where there is none.

function scrollingAncestor(el) {
  for (let node = el.parentNode ?? el.host; node != null; node = node.parentNode ?? node.host) {
    if (node instanceof Element && /(auto|scroll)/.test(getComputedStyle(node).overflowY))
      return node
  }
  return null
}

export function render({model, el}) {
  let near = null
  const watch = () => {
    near = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return
      near.disconnect()
      model.send_msg("near")
    }, {root: scrollingAncestor(el), rootMargin: "25% 0px"})
    near.observe(el)
  }
  requestAnimationFrame(watch)      // once the box is in the page, where its ancestors are known
  model.on("remove", () => near?.disconnect())
}
