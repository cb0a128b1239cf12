// The review page's tools: zoom, swipe, onion skin, flicker, the pixel probe and keyboard
// navigation. Settings may come from the URL fragment: #swipe=30&onion=50&zoom=4&case=2.
(function () {
  "use strict";
  var params = new URLSearchParams(location.hash.slice(1));
  var cases = Array.prototype.slice.call(document.querySelectorAll("section.case"));
  var links = Array.prototype.slice.call(document.querySelectorAll("nav a"));
  var current = 0;

  function number(name, fallback) {
    var v = parseFloat(params.get(name));
    return isNaN(v) ? fallback : v;
  }
  function all(root, selector) {
    return Array.prototype.slice.call(root.querySelectorAll(selector));
  }
  function role(sec, name) {
    return sec.querySelector('img[data-role="' + name + '"]');
  }

  // Each element with data-w and data-h is drawn at that size times the zoom, nearest neighbour.
  function setZoom(z) {
    all(document, "[data-w]").forEach(function (el) {
      el.style.width = el.dataset.w * z + "px";
      el.style.height = el.dataset.h * z + "px";
    });
    all(document, "select.zoom").forEach(function (s) { s.value = String(z); });
  }

  function setSwipe(sec, v) {
    var top = sec.querySelector(".swipe .top");
    if (!top) return;
    top.style.width = v + "%";
    var handle = sec.querySelector(".swipe .handle");
    handle.style.left = v + "%";
    handle.hidden = v <= 0 || v >= 100;
    sec.querySelector("input.swipe").value = v;
  }

  function setOnion(sec, v) {
    var top = sec.querySelector(".onion .top");
    if (!top) return;
    top.style.opacity = v / 100;
    sec.querySelector("input.onion").value = v;
  }

  function toggleFlicker(sec) {
    var img = sec.querySelector(".flicker img");
    if (!img) return;
    var label = sec.querySelector(".flicker-label");
    if (sec.flicker) {
      clearInterval(sec.flicker);
      sec.flicker = null;
      return;
    }
    var showActual = false;
    sec.flicker = setInterval(function () {
      showActual = !showActual;
      img.src = role(sec, showActual ? "actual" : "expected").src;
      label.textContent = showActual ? "actual" : "expected";
    }, 500);
  }

  // Pixels of the expected and actual images, read once through a canvas.
  function pixels(img) {
    if (!img) return null;
    if (!img.pixelData) {
      var c = document.createElement("canvas");
      c.width = img.dataset.w;
      c.height = img.dataset.h;
      var ctx = c.getContext("2d");
      ctx.drawImage(img, 0, 0);
      img.pixelData = ctx.getImageData(0, 0, c.width, c.height);
    }
    return img.pixelData;
  }
  function at(data, x, y) {
    if (!data || x >= data.width || y >= data.height) return null;
    var i = (y * data.width + x) * 4;
    return Array.prototype.slice.call(data.data, i, i + 4);
  }
  function colour(p) {
    if (!p) return "outside the image";
    return '<span class="swatch" style="background:rgba(' + p[0] + "," + p[1] + "," + p[2] + "," + p[3] / 255 +
      ')"></span> rgba(' + p.join(", ") + ")";
  }

  // The probe: the pixel under the cursor in both images, its channel difference, and a loupe.
  function probe(sec, event) {
    var box = event.currentTarget;
    var r = box.getBoundingClientRect();
    var w = Number(box.dataset.w), h = Number(box.dataset.h);
    var x = Math.floor((event.clientX - r.left) / r.width * w);
    var y = Math.floor((event.clientY - r.top) / r.height * h);
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    var e = at(pixels(role(sec, "expected")), x, y);
    var a = at(pixels(role(sec, "actual")), x, y);
    var delta = e && a ? e.map(function (v, i) { return a[i] - v; }) : null;
    sec.querySelector(".probe").innerHTML = "pixel " + x + ", " + y +
      "<br>expected " + colour(e) + "<br>actual " + colour(a) +
      "<br>difference (actual - expected) " + (delta ? delta.join(", ") + "; largest " +
        Math.max.apply(null, delta.map(Math.abs)) : "-");
    var loupe = sec.querySelector("canvas.loupe");
    var ctx = loupe.getContext("2d");
    var n = 11, s = loupe.height / n;
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = "#000";
    ctx.fillRect(0, 0, loupe.width, loupe.height);
    ["expected", "actual"].forEach(function (name, k) {
      var img = role(sec, name);
      if (img) ctx.drawImage(img, x - 5, y - 5, n, n, k * (n * s + 8), 0, n * s, n * s);
      ctx.strokeStyle = "#2a62d4";
      ctx.strokeRect(k * (n * s + 8) + 5 * s, 5 * s, s, s);
    });
  }

  function select(i, scroll) {
    if (!cases.length) return;
    current = (i + cases.length) % cases.length;
    cases.forEach(function (c, k) { c.classList.toggle("current", k === current); });
    links.forEach(function (l, k) { l.classList.toggle("current", k === current); });
    if (scroll) cases[current].scrollIntoView({ block: "start" });
  }

  function copy(button) {
    var code = button.parentNode.querySelector("code");
    var text = code.textContent;
    var done = function () { button.textContent = "copied"; };
    var fallback = function () {
      var range = document.createRange();
      range.selectNodeContents(code);
      var sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      button.textContent = "selected: press Ctrl+C";
    };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }

  cases.forEach(function (sec, k) {
    all(sec, ".box img[data-src]").forEach(function (img) {
      var from = role(sec, img.dataset.src);
      if (from) img.src = from.src;
    });
    var swipe = sec.querySelector("input.swipe");
    if (swipe) swipe.addEventListener("input", function () { setSwipe(sec, Number(swipe.value)); });
    var onion = sec.querySelector("input.onion");
    if (onion) onion.addEventListener("input", function () { setOnion(sec, Number(onion.value)); });
    var flicker = sec.querySelector("button.flicker");
    if (flicker) flicker.addEventListener("click", function () { toggleFlicker(sec); });
    all(sec, "[data-probe]").forEach(function (el) {
      el.addEventListener("mousemove", function (e) { probe(sec, e); });
    });
    all(sec, "button.copy").forEach(function (b) {
      b.addEventListener("click", function () { copy(b); });
    });
    sec.addEventListener("click", function () { select(k, false); });
    setSwipe(sec, number("swipe", 50));
    setOnion(sec, number("onion", 50));
  });
  all(document, "select.zoom").forEach(function (s) {
    s.addEventListener("change", function () { setZoom(Number(s.value)); });
  });
  setZoom(number("zoom", Number(document.body.dataset.zoom)));
  select(number("case", 0), params.has("case"));

  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j" || e.key === "ArrowRight") select(current + 1, true);
    else if (e.key === "k" || e.key === "ArrowLeft") select(current - 1, true);
    else if (e.key === "f") toggleFlicker(cases[current]);
    else return;
    e.preventDefault();
  });

  // Where each image is drawn, in page pixels, for tests that check a screenshot.
  window.addEventListener("load", function () {
    all(document, "[data-role]").forEach(function (el) {
      var r = el.getBoundingClientRect();
      el.dataset.drawn = [r.left + scrollX, r.top + scrollY, r.width, r.height].map(Math.round).join(",");
    });
  });
})();
