const __JG_KEY___report = ((write, stringify, token) => (report, replacer) => {
  const text = stringify(report, replacer).replace(/"\\u0000jg:(NaN|-?Infinity)"/g, "$1");
  write(1, "\n" + token + text + "\n");
})(
  require("fs").writeSync,
  JSON.stringify,
  String.fromCharCode(...[__JG_MASKED__].map((m, i) => m ^ [__JG_MASK__][i])),
);