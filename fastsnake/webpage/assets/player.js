/* The replay player: rebuilds a game from its compact record and draws any frame on a <canvas>.
 *
 * A Snake game arrives as its start body, its moves (2 bits each) and the apple cells in the
 * order they appeared. `rebuildSnake` applies the engine's rules (fastsnake/snake/engine.py, `run`)
 * to them once, keeping the head after every move and the length after every move, so the body
 * after t moves is the last length[t] cells of the head sequence: seeking is O(length) in either
 * direction, with no per-move DOM work. Puzzle solutions and tours are rebuilt the same way.
 *
 * Exposes `FastsnakePlayer` (one per page) and the decoders the tests and the report use.
 */
"use strict";

var FastsnakeCodec = (function () {
  function bytes(b64) {
    var text = atob(b64 || "");
    var out = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }
  // Cells are little-endian uint16 when the board has at most 65,536 cells, else uint32.
  function cells(b64, width) {
    var raw = bytes(b64);
    var view = new DataView(raw.buffer);
    var n = raw.length / width;
    var out = new Int32Array(n);
    for (var i = 0; i < n; i++) out[i] = width === 2 ? view.getUint16(2 * i, true) : view.getUint32(4 * i, true);
    return out;
  }
  // Move k is bits 2(k mod 4)..2(k mod 4)+1 of byte k div 4.
  function moves(b64, count) {
    var raw = bytes(b64);
    var out = new Uint8Array(count);
    for (var k = 0; k < count; k++) out[k] = (raw[k >> 2] >> (2 * (k & 3))) & 3;
    return out;
  }
  return { bytes: bytes, cells: cells, moves: moves };
})();

var FastsnakeRules = (function () {
  var DR = [-1, 0, 1, 0], DC = [0, 1, 0, -1]; // moves 0 up, 1 right, 2 down, 3 left

  /* Re-play a Snake game under the engine's rules. Returns the timeline:
   * seq (start body, then the head after each move that moved it), len (length after t moves),
   * apple (apple cell after t moves, -1 none), frames, outcome, crash cell, and `problem`
   * (null, or why the record contradicts the rules). */
  function rebuildSnake(g) {
    var rows = g.rows, cols = g.cols, n = rows * cols, cellWidth = g.cell_bytes;
    var body0 = FastsnakeCodec.cells(g.data.body, cellWidth);
    var apples = FastsnakeCodec.cells(g.data.apples, cellWidth);
    var count = g.moves;
    var mv = FastsnakeCodec.moves(g.data.moves, count);
    var follow = g.tail === "follow";
    var len0 = body0.length;
    var seq = new Int32Array(len0 + count);
    var lens = new Int32Array(count + 1);
    var appleAt = new Int32Array(count + 1);
    var occ = new Uint8Array(n);
    for (var i = 0; i < len0; i++) { seq[i] = body0[i]; occ[body0[i]] = 1; }
    var end = len0, length = len0, nfree = n - len0, eaten = 0;
    var apple = nfree > 0 ? apples[0] : -1;
    var outcome = nfree === 0 ? "won" : "running", problem = null, crash = -1, died = false;
    if (apple >= 0 && occ[apple]) problem = "the first apple lies on the snake";
    lens[0] = length; appleAt[0] = apple;
    var t = 0;
    for (; t < count && outcome === "running" && !problem; t++) {
      var head = seq[end - 1];
      var r = Math.floor(head / cols) + DR[mv[t]], c = head % cols + DC[mv[t]];
      var target = (r >= 0 && r < rows && c >= 0 && c < cols) ? r * cols + c : -1;
      var tail = seq[end - length];
      var moved = t + 1;
      if (target < 0) {
        outcome = "died"; died = true; crash = -1;
      } else if (target === apple) {
        occ[target] = 1; seq[end++] = target; length++; nfree--; eaten++;
        outcome = moved >= g.max_moves ? "stuck" : "running";
        if (nfree === 0) { outcome = "won"; apple = -1; }
        else if (eaten < apples.length && !occ[apples[eaten]]) apple = apples[eaten];
        else problem = "the apple list puts an apple on the snake or runs out (move " + moved + ")";
      } else if (occ[target] && !(target === tail && follow)) {
        outcome = "died"; died = true; crash = target;
      } else {
        occ[tail] = 0; occ[target] = 1; seq[end++] = target;
        outcome = moved >= g.max_moves ? "stuck" : "running";
      }
      lens[moved] = length; appleAt[moved] = apple;
    }
    if (!problem && t !== count) problem = "the game ends after move " + t + " but " + count + " moves are listed";
    if (!problem && outcome === "running") problem = "the game is still running after its " + count + " moves";
    if (!problem && outcome !== g.outcome) problem = "the moves end in '" + outcome + "', the record says '" + g.outcome + "'";
    return { kind: "snake", rows: rows, cols: cols, seq: seq, len: lens, apple: appleAt, len0: len0, moves: mv,
             frames: count + 1, outcome: outcome, died: died, crash: crash, problem: problem };
  }

  function snakeState(tl, t) {
    // A fatal move leaves the head where it was: the last frame shows the body before it.
    var k = (tl.died && t === tl.frames - 1) ? t - 1 : t;
    var end = tl.len0 + k;
    var length = tl.len[k];
    var head = tl.seq[end - 1];
    return {
      move: t,
      head: [Math.floor(head / tl.cols), head % tl.cols],
      length: length,
      apples: length - tl.len0,
      outcome: t === tl.frames - 1 ? tl.outcome : "running",
      body: function () { return tl.seq.subarray(end - length, end); },
      apple: tl.apple[k]
    };
  }

  /* A puzzle solution: tiles after each blank move (U D L R moves the blank). */
  function rebuildPuzzle(p) {
    var rows = p.rows, cols = p.cols, n = rows * cols;
    var tiles = Int32Array.from(p.start);
    var frames = [Int32Array.from(tiles)], blank = tiles.indexOf(0), problem = null, moved = [-1];
    var step = { U: -cols, D: cols, L: -1, R: 1 };
    for (var i = 0; i < p.moves.length; i++) {
      var ch = p.moves[i], r = Math.floor(blank / cols), c = blank % cols;
      var ok = (ch === "U" && r > 0) || (ch === "D" && r < rows - 1) || (ch === "L" && c > 0) || (ch === "R" && c < cols - 1);
      if (!ok) { problem = "move " + (i + 1) + " (" + ch + ") leaves the board"; break; }
      var to = blank + step[ch];
      tiles[blank] = tiles[to]; tiles[to] = 0; moved.push(blank); blank = to;
      frames.push(Int32Array.from(tiles));
    }
    if (!problem) {
      for (var j = 0; j < n; j++) if (tiles[j] !== p.goal[j]) { problem = "the moves do not reach the goal"; break; }
    }
    return { kind: "puzzle", rows: rows, cols: cols, boards: frames, moved: moved, goal: p.goal,
             frames: frames.length, problem: problem };
  }

  /* A tour: frame k shows the first k+1 squares visited. */
  function rebuildTour(p) {
    var path = FastsnakeCodec.cells(p.data.path, p.cell_bytes);
    var order = new Int32Array(p.rows * p.cols).fill(-1), problem = null;
    for (var i = 0; i < path.length; i++) {
      if (order[path[i]] >= 0) { problem = "square " + path[i] + " is visited twice"; break; }
      order[path[i]] = i;
    }
    return { kind: "tour", rows: p.rows, cols: p.cols, path: path, order: order, closed: !!p.closed,
             frames: Math.max(1, path.length), start: p.start, problem: problem };
  }

  return { rebuildSnake: rebuildSnake, snakeState: snakeState, rebuildPuzzle: rebuildPuzzle,
           rebuildTour: rebuildTour };
})();

var FastsnakePlayer = (function () {
  var MAX_PIXELS = 640; // the board's longer side on screen, before the browser's zoom

  function packedRgb(c) { return (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]; } // one ImageData pixel (RGBA, little-endian) as a uint32; css() is the CSS string
  function mix(a, b, t) { return [Math.round(a[0] + (b[0] - a[0]) * t), Math.round(a[1] + (b[1] - a[1]) * t),
                                  Math.round(a[2] + (b[2] - a[2]) * t)]; }
  function css(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }

  function Player(canvas, palette, onFrame) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.pal = palette;
    this.onFrame = onFrame || function () {};
    this.tl = null;
    this.frame = 0;
    this.playing = false;
    this.speed = 20; // moves a second
    this.carry = 0;
    this.last = 0;
    var self = this;
    this._tick = function (now) { self.tick(now); };
  }

  Player.prototype.load = function (timeline) {
    this.playing = false;
    this.frame = 0; // before anything reads a frame of the new timeline
    this.tl = timeline;
    var side = Math.max(timeline.rows, timeline.cols);
    var pitch = Math.max(1, Math.floor(MAX_PIXELS / side));
    this.pitch = pitch;
    this.gap = pitch < 5 ? 0 : Math.max(1, Math.floor(pitch / 10));
    this.inner = pitch - this.gap;
    this.width = timeline.cols * pitch + this.gap;
    this.height = timeline.rows * pitch + this.gap;
    this.canvas.width = this.width;
    this.canvas.height = this.height;
    this.image = this.ctx.createImageData(this.width, this.height);
    this.pixels = new Uint32Array(this.image.data.buffer);
    this.blank = this.blankBoard();
    if (timeline.kind === "snake") {
      // Body colours from tail to head, as the viewer shades them; computed once per length.
      this.shadeCache = {};
    }
    this.seek(0);
  };

  Player.prototype.blankBoard = function () {
    var tl = this.tl, pal = this.pal, px = new Uint32Array(this.width * this.height);
    px.fill(packedRgb(pal.grid));
    for (var cell = 0; cell < tl.rows * tl.cols; cell++) {
      var color = pal.empty;
      if (tl.kind === "tour") {
        var r = Math.floor(cell / tl.cols), c = cell % tl.cols;
        color = (r + c) % 2 ? pal.dark : pal.light;
      }
      this.fillCell(px, cell, packedRgb(color));
    }
    return px;
  };

  Player.prototype.fillRect = function (px, x, y, w, h, value) {
    var W = this.width;
    for (var yy = y; yy < y + h; yy++) px.fill(value, yy * W + x, yy * W + x + w);
  };

  Player.prototype.fillCell = function (px, cell, value) {
    var cols = this.tl.cols, r = Math.floor(cell / cols), c = cell % cols;
    this.fillRect(px, c * this.pitch + this.gap, r * this.pitch + this.gap, this.inner, this.inner, value);
  };

  // The gap between two neighbouring cells, so a snake reads as one piece.
  Player.prototype.fillJoin = function (px, a, b, value) {
    if (!this.gap) return;
    var cols = this.tl.cols, ra = Math.floor(a / cols), ca = a % cols, rb = Math.floor(b / cols), cb = b % cols;
    if (ra === rb && Math.abs(ca - cb) === 1) {
      this.fillRect(px, Math.max(ca, cb) * this.pitch, ra * this.pitch + this.gap, this.gap, this.inner, value);
    } else if (ca === cb && Math.abs(ra - rb) === 1) {
      this.fillRect(px, ca * this.pitch + this.gap, Math.max(ra, rb) * this.pitch, this.inner, this.gap, value);
    }
  };

  Player.prototype.ring = function (px, cell, value) {
    var cols = this.tl.cols, r = Math.floor(cell / cols), c = cell % cols;
    var x = c * this.pitch + this.gap, y = r * this.pitch + this.gap, w = this.inner;
    var t = Math.max(1, Math.floor(w / 6));
    this.fillRect(px, x, y, w, t, value); this.fillRect(px, x, y + w - t, w, t, value);
    this.fillRect(px, x, y, t, w, value); this.fillRect(px, x + w - t, y, t, w, value);
  };

  Player.prototype.disc = function (px, cell, value) {
    var cols = this.tl.cols, r = Math.floor(cell / cols), c = cell % cols, w = this.inner;
    if (w < 8) { this.fillCell(px, cell, value); return; }
    var x0 = c * this.pitch + this.gap, y0 = r * this.pitch + this.gap, rad = Math.max(2, w * 2 / 5), mid = (w - 1) / 2;
    for (var dy = 0; dy < w; dy++) for (var dx = 0; dx < w; dx++) {
      if ((dx - mid) * (dx - mid) + (dy - mid) * (dy - mid) <= rad * rad) this.pixels[(y0 + dy) * this.width + x0 + dx] = value;
    }
  };

  Player.prototype.shades = function (length) {
    var key = length > 4096 ? 4096 : length, got = this.shadeCache[key];
    if (!got) {
      got = new Uint32Array(key);
      for (var i = 0; i < key; i++) got[i] = packedRgb(mix(this.pal.body_tail, this.pal.body_head, key > 1 ? i / (key - 1) : 1));
      this.shadeCache[key] = got;
    }
    return got;
  };

  Player.prototype.draw = function () {
    var tl = this.tl, pal = this.pal, px = this.pixels;
    px.set(this.blank);
    if (tl.kind === "snake") {
      var st = FastsnakeRules.snakeState(tl, this.frame), body = st.body(), L = body.length;
      var shade = this.shades(L), scale = shade.length / Math.max(L, 1);
      for (var i = 0; i < L; i++) {
        var v = shade[Math.min(shade.length - 1, Math.floor(i * scale))];
        this.fillCell(px, body[i], v);
        if (i > 0) this.fillJoin(px, body[i - 1], body[i], v);
      }
      this.fillCell(px, body[L - 1], packedRgb(pal.head));
      if (st.apple >= 0) this.disc(px, st.apple, packedRgb(pal.apple));
      if (this.frame === tl.frames - 1 && tl.died) this.ring(px, tl.crash >= 0 ? tl.crash : body[L - 1], packedRgb(pal.crash));
      this.ctx.putImageData(this.image, 0, 0);
    } else if (tl.kind === "puzzle") {
      var tiles = tl.boards[this.frame];
      for (var cell = 0; cell < tiles.length; cell++) {
        if (!tiles[cell]) continue;
        this.fillCell(px, cell, packedRgb(tiles[cell] === tl.goal[cell] ? pal.tile_home : pal.tile));
      }
      if (tl.moved[this.frame] >= 0) this.fillCell(px, tl.moved[this.frame], packedRgb(pal.tile_moved));
      this.ctx.putImageData(this.image, 0, 0);
      this.labels(function (cell) { return tiles[cell] ? String(tiles[cell]) : ""; }, tiles.length, pal.text);
    } else {
      var seen = Math.min(this.frame + 1, tl.path.length);
      for (var k = 0; k < seen; k++) {
        this.fillCell(px, tl.path[k], packedRgb(mix(pal.visit_old, pal.visit_new, tl.path.length > 1 ? k / (tl.path.length - 1) : 1)));
      }
      this.fillCell(px, seen ? tl.path[seen - 1] : tl.start, packedRgb(pal.current));
      this.ctx.putImageData(this.image, 0, 0);
      if (this.inner >= 6 && seen > 1 && seen <= 20000) this.jumps(seen);
      var order = tl.order;
      if (tl.rows * tl.cols <= 4096) {
        this.labels(function (cell) { return order[cell] >= 0 && order[cell] < seen ? String(order[cell] + 1) : ""; },
                    tl.rows * tl.cols, pal.text);
      }
    }
    this.onFrame(this.state());
  };

  Player.prototype.jumps = function (seen) {
    var ctx = this.ctx, tl = this.tl, self = this;
    function centre(cell) {
      var r = Math.floor(cell / tl.cols), c = cell % tl.cols;
      return [c * self.pitch + self.gap + self.inner / 2, r * self.pitch + self.gap + self.inner / 2];
    }
    ctx.strokeStyle = css(this.pal.jump);
    ctx.lineWidth = Math.max(1, this.pitch / 16);
    ctx.beginPath();
    var p = centre(tl.path[0]);
    ctx.moveTo(p[0], p[1]);
    for (var k = 1; k < seen; k++) { p = centre(tl.path[k]); ctx.lineTo(p[0], p[1]); }
    if (tl.closed && seen === tl.path.length) ctx.closePath();
    ctx.stroke();
  };

  Player.prototype.labels = function (label, cells, color) {
    if (this.inner < 16) return;
    var ctx = this.ctx, cols = this.tl.cols;
    ctx.fillStyle = css(color);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.font = Math.floor(this.inner * 0.4) + "px sans-serif";
    for (var cell = 0; cell < cells; cell++) {
      var text = label(cell);
      if (!text) continue;
      var r = Math.floor(cell / cols), c = cell % cols;
      ctx.fillText(text, c * this.pitch + this.gap + this.inner / 2, r * this.pitch + this.gap + this.inner / 2);
    }
  };

  Player.prototype.state = function () {
    var tl = this.tl;
    if (!tl) return null;
    var last = tl.frames - 1;
    if (tl.kind === "snake") {
      var st = FastsnakeRules.snakeState(tl, this.frame);
      return { move: st.move, head: st.head, length: st.length, apples: st.apples, outcome: st.outcome, frames: tl.frames };
    }
    if (tl.kind === "puzzle") {
      var tiles = tl.boards[this.frame], blank = tiles.indexOf(0);
      return { move: this.frame, blank: [Math.floor(blank / tl.cols), blank % tl.cols], tiles: Array.from(tiles),
               solved: this.frame === last && !tl.problem, outcome: this.frame === last ? "solved" : "running",
               frames: tl.frames };
    }
    var at = tl.path.length ? tl.path[Math.min(this.frame, tl.path.length - 1)] : tl.start;
    return { move: this.frame, square: [Math.floor(at / tl.cols), at % tl.cols],
             visited: Math.min(this.frame + 1, tl.path.length), outcome: this.frame === last ? "done" : "running",
             frames: tl.frames };
  };

  Player.prototype.seek = function (k) {
    if (!this.tl) return;
    k = Number(k);
    k = k === Infinity ? this.tl.frames - 1 : isFinite(k) ? Math.round(k) : 0;
    this.frame = Math.min(Math.max(k, 0), this.tl.frames - 1);
    this.draw();
  };

  Player.prototype.step = function (d) { this.pause(); this.seek(this.frame + d); };

  Player.prototype.play = function () {
    if (!this.tl) return;
    if (this.frame >= this.tl.frames - 1) this.seek(0);
    this.playing = true;
    this.carry = 0;
    this.last = 0;
    requestAnimationFrame(this._tick);
    this.onFrame(this.state());
  };

  Player.prototype.pause = function () { this.playing = false; if (this.tl) this.onFrame(this.state()); };

  Player.prototype.toggle = function () { if (this.playing) this.pause(); else this.play(); };

  Player.prototype.tick = function (now) {
    if (!this.playing) return;
    if (this.last) this.carry += (now - this.last) / 1000 * this.speed;
    this.last = now;
    var ahead = Math.floor(this.carry);
    if (ahead > 0) {
      this.carry -= ahead;
      this.seek(this.frame + ahead);
      if (this.frame >= this.tl.frames - 1) { this.pause(); return; }
    }
    requestAnimationFrame(this._tick);
  };

  return Player;
})();
