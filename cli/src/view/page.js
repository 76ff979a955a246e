// agentloop view: draws the transcript held as JSON in #data. Everything from the
// transcript is set with textContent or as an SVG attribute value: never as markup.
(function () {
  'use strict';
  var CUT = 400;
  var SVG = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('data').textContent);
  var verdict = data.verdict;
  var calls = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // A value shown as text, cut at CUT characters with a button that shows it whole.
  function value(text) {
    text = String(text);
    var pre = el('pre', 'value');
    if (text.length <= CUT) {
      pre.textContent = text;
      return pre;
    }
    var at = CUT;
    var code = text.charCodeAt(at - 1);
    if (code >= 0xd800 && code <= 0xdbff) at -= 1;
    pre.textContent = text.slice(0, at) + '\u2026';
    var box = el('div', 'long');
    box.appendChild(pre);
    var more = el('button', 'more', 'show all (' + text.length + ' characters)');
    more.type = 'button';
    more.addEventListener('click', function () {
      pre.textContent = text;
      box.removeChild(more);
    });
    box.appendChild(more);
    return box;
  }

  // A count and its noun, plural unless the count is 1.
  function count(n, noun) {
    return n + ' ' + noun + (n === 1 ? '' : 's');
  }

  function short(text, n) {
    text = String(text).replace(/\s+/g, ' ');
    return text.length > n ? text.slice(0, n) + '\u2026' : text;
  }

  function list(pairs) {
    var dl = el('dl');
    pairs.forEach(function (p) {
      if (p[1] === undefined || p[1] === null) return;
      dl.appendChild(el('dt', null, p[0]));
      var dd = el('dd');
      if (p[1] instanceof Node) dd.appendChild(p[1]); else dd.textContent = String(p[1]);
      dl.appendChild(dd);
    });
    return dl;
  }

  function setupList(conf) {
    if (!conf) return null;
    return list([
      ['model', conf.llm], ['endpoint', conf.address],
      ['system prompt', conf.system === undefined ? null : value(conf.system)],
      ['options', conf.options], ['tools offered', (conf.tools || []).join(', ') || '(none)']
    ]);
  }

  function limitsText(limits) {
    return (limits || []).map(function (l) { return l[0] + ' ' + l[1]; }).join(', ') || '(none)';
  }

  // The one-line summary of a row and the function that fills its opened body.
  function describe(row) {
    var b = row.body;
    if (!b) {
      var why = row.why ? row.why : 'a record of a kind the loop does not write';
      return [row.kind ? 'payload shown as written' : 'not a record: ' + why, function (body) {
        if (row.why) body.appendChild(el('p', null, row.why));
        body.appendChild(value(row.raw || ''));
      }];
    }
    switch (row.kind) {
      case 'task':
        return [short(b.ask, 140), function (body) {
          body.appendChild(value(b.ask));
          body.appendChild(list([['budgets', limitsText(b.limits)], ['stop sentinel', b.sentinel]]));
          var s = setupList(b.conf);
          if (s) body.appendChild(s);
        }];
      case 'assistant':
        var names = b.calls.map(function (c) { return c.tool; }).join(', ');
        return [(b.say ? short(b.say, 100) + ' \u00b7 ' : '') + count(b.calls.length, 'call') +
          (names ? ' (' + short(names, 60) + ')' : '') + ' \u00b7 ' + count(b.spent, 'token'), function (body) {
          if (b.say) body.appendChild(value(b.say));
          b.calls.forEach(function (c) {
            var d = el('details', 'call');
            d.appendChild(el('summary', null, c.call + ' ' + c.tool));
            d.appendChild(value(c.args));
            body.appendChild(d);
          });
          var m = b.meta || {};
          body.appendChild(list([['tokens', b.spent], ['input tokens', m.input], ['cached input tokens', m.cached],
            ['model', m.llm], ['response id', m.response], ['finish reason', m.finish],
            ['request sha256', m.req_sha], ['response sha256', m.resp_sha]]));
        }];
      case 'tool':
        return [b.call + ' ' + b.tool + (b.fine ? ' \u2192 ' : ' \u2192 failed: ') + short(b.out, 100), function (body) {
          var call = calls[b.call];
          if (call) {
            body.appendChild(el('p', null, 'arguments'));
            body.appendChild(value(call.args));
          }
          body.appendChild(el('p', b.fine ? null : 'failed-text', b.fine ? 'result' : 'error'));
          body.appendChild(value(b.out));
        }];
      case 'stop':
        return ['stopped: ' + b.why + ' \u00b7 ' + count(b.turns, 'turn') + ', ' + count(b.spent, 'token') +
          (b.unrun ? ', ' + count(b.unrun, 'call') + ' not run' : ''), function (body) {
          body.appendChild(list([['reason', b.why], ['turns', b.turns], ['tokens', b.spent],
            ['calls not run', b.unrun], ['error', b.fail]]));
        }];
      case 'resume':
        return ['resumed after ' + b.since, function (body) {
          body.appendChild(list([['after', b.since]]));
          var s = setupList(b.conf);
          if (s) body.appendChild(s);
        }];
      case 'setup':
        return ['setup changed: ' + b.why, function (body) {
          body.appendChild(list([['reason', b.why]]));
          var s = setupList(b.conf);
          if (s) body.appendChild(s);
        }];
    }
    return ['', function () {}];
  }

  function rowElement(row) {
    var div = el('div', 'row');
    div.dataset.line = row.n;
    if (row.seq !== undefined) div.dataset.seq = row.seq;
    if (row.kind !== undefined) {
      div.dataset.kind = row.kind;
      div.classList.add('k-' + row.kind.replace(/[^a-z]/g, ''));
    }
    if (!row.body) div.classList.add('unread');
    if (row.body && row.body.fine === false) div.classList.add('failed');
    if (row.unverified) div.classList.add('after');
    var details = el('details');
    var summary = el('summary');
    var where = row.seq !== undefined ? 'seq ' + row.seq : 'line ' + row.n;
    summary.appendChild(el('span', 'where', where));
    summary.appendChild(el('span', 'kind', row.kind !== undefined ? short(row.kind, 24) : '\u2014'));
    var d = describe(row);
    summary.appendChild(el('span', 'text', d[0] + (row.torn ? ' (no terminating newline: a torn append)' : '')));
    details.appendChild(summary);
    (row.faults || []).forEach(function (f) { div.appendChild(el('p', 'note', f)); });
    if (row.unverified && !row.faults) {
      summary.appendChild(el('span', 'after-note', ' \u2014 after the first fault: not verified'));
    }
    div.appendChild(details);
    return div;
  }

  // A row's body is made when the row is first opened (one listener for all rows:
  // toggle does not bubble, but it is seen on the way down).
  function fill(event) {
    var details = event.target;
    if (!details.open || details.dataset.filled || !details.parentNode.classList.contains('row')) return;
    details.dataset.filled = 'yes';
    var row = data.rows[Number(details.parentNode.dataset.line) - 1];
    var body = el('div', 'body');
    body.appendChild(list([['line', row.n], ['seq', row.seq], ['hash', row.hash]]));
    describe(row)[1](body);
    details.appendChild(body);
  }

  function drawVerdict() {
    var box = document.getElementById('verdict');
    document.getElementById('file').textContent = data.file;
    document.title = 'agentloop view: ' + data.file;
    box.className = verdict.ok ? 'ok' : 'bad';
    box.appendChild(el('p', 'title', verdict.ok ? 'Verified when this page was made' : 'Does not verify'));
    box.appendChild(el('p', null, verdict.sentence));
    if (!verdict.ok && verdict.first) box.appendChild(el('p', null, 'First fault: ' + verdict.first));
    if (!verdict.ok && verdict.line) {
      var go = el('button', 'more', 'go to line ' + verdict.line);
      go.type = 'button';
      go.addEventListener('click', function () { jump(); });
      box.appendChild(go);
    }
  }

  function drawStops() {
    var box = document.getElementById('stops');
    var stops = data.rows.filter(function (r) { return r.kind === 'stop' && r.body; });
    if (!stops.length) {
      box.appendChild(el('p', null, 'No stop record: the run did not end in this file.'));
    }
    stops.forEach(function (r) {
      var b = r.body;
      box.appendChild(el('p', null, 'Stop reason (seq ' + r.seq + '): ' + b.why + ' after ' + count(b.turns, 'turn') +
        ' and ' + count(b.spent, 'token') + (b.unrun ? '; ' + count(b.unrun, 'call') + ' not run' : '') +
        (b.fail ? '; error: ' + short(b.fail, 200) : '')));
    });
  }

  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  // One panel: series of [x, y] against limits [[name, value]].
  function panel(title, series, limits) {
    var W = 520, H = 180, L = 48, R = 12, T = 12, B = 28;
    var xs = series.length ? series[0].points.length : 0;
    var top = 1;
    series.forEach(function (s) { s.points.forEach(function (p) { top = Math.max(top, p); }); });
    limits.forEach(function (l) { top = Math.max(top, l[1]); });
    top = top * 1.1;
    var x = function (i) { return L + (xs <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (xs - 1)); };
    var y = function (v) { return T + (H - T - B) * (1 - v / top); };
    var root = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    root.appendChild(svg('title', {}, title));
    root.appendChild(svg('line', { 'class': 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
    root.appendChild(svg('line', { 'class': 'axis', x1: L, y1: T, x2: L, y2: H - B }));
    root.appendChild(svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end' }, Math.round(top)));
    root.appendChild(svg('text', { x: L - 4, y: H - B, 'text-anchor': 'end' }, 0));
    root.appendChild(svg('text', { x: (W + L) / 2, y: H - 6, 'text-anchor': 'middle' }, 'turn (1 to ' + xs + ')'));
    limits.forEach(function (l) {
      root.appendChild(svg('line', { 'class': 'limit', x1: L, y1: y(l[1]), x2: W - R, y2: y(l[1]) }));
      root.appendChild(svg('text', { x: W - R, y: y(l[1]) - 3, 'text-anchor': 'end' }, l[0] + ' ' + l[1]));
    });
    series.forEach(function (s) {
      var pts = s.points.map(function (v, i) { return x(i).toFixed(1) + ',' + y(v).toFixed(1); });
      root.appendChild(svg('polyline', { 'class': 'series ' + s.cls, points: pts.join(' ') }));
      if (s.points.length <= 60) {
        s.points.forEach(function (v, i) {
          root.appendChild(svg('circle', { 'class': 'dot', cx: x(i), cy: y(v), r: 2.5 }));
        });
      }
    });
    var fig = el('figure');
    fig.appendChild(root);
    fig.appendChild(el('figcaption', null, title));
    return fig;
  }

  function drawBudget() {
    var box = document.getElementById('budget');
    var plot = data.plot;
    var pts = plot.points;
    box.appendChild(el('h2', null, 'Budget'));
    var limits = {};
    plot.limits.forEach(function (l) { limits[l[0]] = l[1]; });
    var last = pts.length ? pts[pts.length - 1] : [0, 0, 0, 0];
    box.appendChild(el('p', null, count(pts.length, 'turn') + (limits.max_steps !== undefined ? ' of max_steps ' + limits.max_steps : '') +
      ', ' + count(last[1], 'token') + ', ' + count(last[3], 'tool call') + '; budgets: ' + limitsText(plot.limits) +
      (plot.sentinel !== undefined ? '; stop sentinel ' + JSON.stringify(plot.sentinel) : '')));
    if (!pts.length) return;
    var wrap = el('div', 'plots');
    var tokenSeries = [{ cls: '', points: pts.map(function (p) { return p[1]; }) }];
    var tokenLimits = [];
    if (limits.max_tokens !== undefined) tokenLimits.push(['max_tokens', limits.max_tokens]);
    if (limits.max_total_tokens !== undefined) {
      tokenSeries.push({ cls: 'total', points: pts.map(function (p) { return p[2]; }) });
      tokenLimits.push(['max_total_tokens', limits.max_total_tokens]);
    }
    wrap.appendChild(panel('Tokens after each turn (solid: output tokens' +
      (tokenSeries.length > 1 ? '; dashed: with input tokens' : '') + ')', tokenSeries, tokenLimits));
    var callLimits = limits.max_tool_calls !== undefined ? [['max_tool_calls', limits.max_tool_calls]] : [];
    wrap.appendChild(panel('Tool calls after each turn', [{ cls: '', points: pts.map(function (p) { return p[3]; }) }], callLimits));
    box.appendChild(wrap);
  }

  function jump() {
    var row = document.getElementById('fault-row');
    if (!row) return;
    row.scrollIntoView({ block: 'center' });
  }

  function drawTimeline() {
    var main = document.getElementById('timeline');
    main.addEventListener('toggle', fill, true);
    var frag = document.createDocumentFragment();
    data.rows.forEach(function (row) {
      if (row.kind === 'assistant' && row.body) {
        row.body.calls.forEach(function (c) { calls[c.call] = c; });
      }
      var div = rowElement(row);
      if (!verdict.ok && row.n === verdict.line) {
        div.classList.add('fault');
        div.id = 'fault-row';
      }
      frag.appendChild(div);
    });
    main.appendChild(frag);
  }

  drawVerdict();
  drawStops();
  drawBudget();
  drawTimeline();
  var faulty = document.getElementById('fault-row');
  if (faulty) {
    faulty.querySelector('details').open = true;
    jump();
  }
  document.body.dataset.ready = 'yes';
})();
