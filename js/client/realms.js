// Same-origin windows a page's script reaches — about:blank and srcdoc frames, popups, and
// theirs — have a navigator.locks of the origin's lock manager natively (§3.1), but no
// polyfill of their own: this one is installed in each when script first reaches it, through
// a frame's `contentWindow` or `contentDocument`, or `open()`'s result (not `frames[i]`:
// docs/lifecycle.md "Known limits"). Windows of another origin, and those that have a
// navigator.locks already (native, or a polyfill's) unless the page's was installed over
// native (`force`), are left alone.

// (Installed over native ones too where the page's was (`force`): a frame must not use
// another lock manager than its page. Once per window: its navigator.)
const reached = new WeakSet();

// `install(window, navigator)` for each window `realm`'s script reaches.
export function reachRealms(realm, install, force) {
  const reach = (value) => {
    try {
      const frame = value.defaultView || value; // (a document's window)
      const nav = frame.navigator; // (throws for another origin's)
      if (frame != realm && !reached.has(nav) && (force || !('locks' in nav))) reached.add(nav), install(frame, nav);
    } catch {}
    return value;
  };
  // (Getters named as the native ones; they keep their other attributes.)
  const proto = realm.HTMLIFrameElement.prototype;
  for (const key of ['contentWindow', 'contentDocument']) {
    const { get } = Object.getOwnPropertyDescriptor(proto, key);
    Object.defineProperty(proto, key, Object.getOwnPropertyDescriptor({ get [key]() { return reach(get.call(this)); } }, key));
  }
  const open = realm.open;
  realm.open = {
    open() {
      return reach(open.apply(this, arguments));
    },
  }.open;
}
