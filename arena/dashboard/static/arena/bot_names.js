// The head-to-head form's bot names: as one types, ask the server for up to 20 matching
// names and offer them in the inputs' datalist (the page never lists every bot).
(function () {
  var script = document.getElementById("bot-names-script");
  var list = document.getElementById("h2h-bots");
  if (!script || !list) return;
  var url = script.dataset.url, timer = null, asked = null;
  function ask(text) {
    if (text === asked) return;
    asked = text;
    fetch(url + "?q=" + encodeURIComponent(text), { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : { names: [] }; })
      .then(function (data) {
        if (text !== asked) return;
        list.replaceChildren.apply(list, data.names.map(function (name) {
          var option = document.createElement("option");
          option.value = name;
          return option;
        }));
      })
      .catch(function () {});
  }
  document.querySelectorAll('input[list="h2h-bots"]').forEach(function (input) {
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { ask(input.value.trim()); }, 150);
    });
    input.addEventListener("focus", function () { ask(input.value.trim()); });
  });
})();
