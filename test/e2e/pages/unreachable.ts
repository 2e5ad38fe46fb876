// A frame added after the page has loaded that never finishes loading itself (fixtures.ts
// serves it), so the content script, which runs at document_idle, never arrives in it.
addEventListener('load', () => {
  const frame = Object.assign(document.createElement('iframe'), { id: 'frame', src: '/hanging-frame.html' });
  frame.style.cssText = 'width: 100%; height: 120px;';
  document.body.append(frame);
});
