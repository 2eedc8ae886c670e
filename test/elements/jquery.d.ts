// The slice of jQuery the element tests use (the delegated-handler style of legacy pages); jquery ships no types.
declare module 'jquery' {
  interface JQueryEventLike {
    originalEvent?: Event;
  }
  interface JQueryLike {
    on(events: string, selector: string, handler: (this: Element, event: JQueryEventLike) => void): JQueryLike;
    off(events: string): JQueryLike;
  }
  const $: (target: Document | Element | string) => JQueryLike;
  export default $;
}
