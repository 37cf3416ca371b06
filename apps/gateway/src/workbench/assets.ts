/**
 * The workbench's only stylesheet and script, served by the gateway itself (no CDN; the machine
 * may be offline). The script only enhances: every page works without it. It follows POST /agui
 * (the AG-UI stream) on the newest timeline page, filtered or not, inserts each committed entry's
 * row that matches the page's filters (rendered by the server: GET /workbench/rows?from=N&<the
 * page's filters>) and keeps the status line saying, in UTC like the page, when World last checked.
 */

export const WORKBENCH_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafafa}
header{display:flex;justify-content:space-between;align-items:center;padding:.5rem 1rem;background:#1b1f24;color:#fff}
header a{color:#cfe3ff;margin-left:1rem}header a:focus,a:focus,button:focus,select:focus,input:focus,textarea:focus,summary:focus{outline:3px solid #f5a623;outline-offset:1px}
.brand{font-weight:700}.who{font-size:12px;color:#ccc}
main{padding:1rem 1.5rem;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e3e3e3;padding:.3rem .5rem;text-align:left;vertical-align:top}
code,pre{font-family:ui-monospace,monospace;font-size:12px}pre{background:#f2f2f2;padding:.5rem;overflow:auto;max-height:30rem;white-space:pre-wrap;word-break:break-all}
.ok{color:#137333;font-weight:700}.bad{color:#c5221f;font-weight:700}.unchecked,.muted{color:#777}
.outcome.ok{color:#137333}.outcome.denied,.outcome.failed{color:#c5221f}.outcome.refused{color:#b06000}
.reason{color:#555;font-size:12px}tr.broken{background:#fde8e8}
.filters{display:flex;gap:.4rem;align-items:center;flex-wrap:wrap;margin-bottom:.5rem}
#live{font-size:12px;color:#444}.stop{color:#c5221f}
.diff .add{color:#137333}.diff .del{color:#c5221f}.diff .same{color:#555}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0;word-break:break-all}
textarea{width:100%;font-family:ui-monospace,monospace}
.pair{display:flex;gap:1.5rem;align-items:flex-start;flex-wrap:wrap}.pair>section{min-width:0}.pair>.latency{flex:0 1 27rem}.latency td{white-space:nowrap}.pair>.replicas{flex:1 1 36rem}.pair h2{margin-top:.5rem}
tr.fresh{animation:fresh 2s}@keyframes fresh{from{background:#fff6d5}to{background:#fff}}
`;

export const WORKBENCH_JS = `'use strict';
(function () {
  var live = document.getElementById('live');
  if (!live || live.getAttribute('data-live') !== 'on' || !window.fetch || !window.TextDecoder) return;
  var tbody = document.querySelector('#timeline tbody');
  var newest = Number(live.getAttribute('data-head'));
  var cursor = newest + 1;
  var runs = 0;
  var filters = live.getAttribute('data-filters') || '';
  function clock(ms) { return new Date(ms).toISOString().slice(11, 19); }
  function status(text) { live.textContent = text; }
  function checked(ms) {
    status('live: checked ' + clock(ms) + ', ' + (newest < 0 ? 'no entries yet' : 'no new entries after #' + newest));
  }
  function addRows(from) {
    return fetch('/workbench/rows?from=' + from + (filters === '' ? '' : '&' + filters), { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : ''; })
      .then(function (text) {
        if (text === '') return 0;
        var t = document.createElement('tbody');
        t.innerHTML = text;
        var rows = Array.prototype.slice.call(t.children);
        rows.forEach(function (row) {
          var i = Number(row.getAttribute('data-index'));
          if (tbody.querySelector('tr[data-index="' + i + '"]')) return;
          row.className = 'fresh';
          tbody.insertBefore(row, tbody.firstChild);
        });
        return rows.length;
      });
  }
  function handle(frame) {
    var data = '';
    frame.split('\\n').forEach(function (line) {
      if (line.indexOf(': checked ') === 0) checked(Number(line.split(' ')[2]));
      else if (line.indexOf('data: ') === 0) data += line.slice(6);
    });
    if (data === '') return Promise.resolve();
    var event = JSON.parse(data);
    if (event.type === 'CUSTOM' && event.name === 'world.entry.committed') {
      var index = event.value.header.entryIndex;
      var before = newest;
      newest = Math.max(newest, index);
      return addRows(before + 1).then(function (added) {
        if (added > 0) status('live: entry #' + index + ' committed at ' + clock(Date.now()));
        else status('live: checked ' + clock(Date.now()) + ', no new entries matching the filters after #' + newest);
      });
    }
    if (event.type === 'STATE_SNAPSHOT') cursor = event.snapshot.cursor;
    if (event.type === 'STATE_DELTA') event.delta.forEach(function (op) { if (op.path === '/cursor') cursor = op.value; });
    return Promise.resolve();
  }
  function run() {
    runs += 1;
    fetch('/agui', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId: 'workbench', runId: 'timeline-' + runs, state: { cursor: cursor }, messages: [], tools: [], context: [], forwardedProps: {} })
    }).then(function (res) {
      if (!res.ok || !res.body) throw new Error('live updates unavailable (' + res.status + ')');
      var reader = res.body.getReader();
      var decoder = new TextDecoder();
      var buffer = '';
      var chain = Promise.resolve();
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) return chain;
          buffer += decoder.decode(step.value, { stream: true });
          var cut;
          while ((cut = buffer.indexOf('\\n\\n')) >= 0) {
            var frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            chain = chain.then(handle.bind(null, frame));
          }
          return pump();
        });
      }
      return pump();
    }).then(function () { setTimeout(run, 0); }, function (err) {
      status('live: paused (' + err.message + '); retrying at ' + clock(Date.now() + 5000));
      setTimeout(run, 5000);
    });
  }
  run();
})();
`;

/**
 * The page icon: named by every page so the browser never asks for /favicon.ico (a 404 the
 * console would report as an error).
 */
export const WORKBENCH_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a73e8"/><text x="8" y="12" font-size="10" text-anchor="middle" fill="#fff">W</text></svg>';
