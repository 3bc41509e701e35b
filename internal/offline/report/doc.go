// Package report renders what `kscale simulate` produced: the readable
// timeline, the JSON output and the self-contained HTML report of a
// scenario run, and the text, JSON and HTML output of a what-if. It only
// formats results: running the simulation and turning flags into calls is
// the CLI's part.
//
// The HTML page is html/template text (page.html, whatif.html) and the
// chart script a plain JavaScript file (chart.js), all embedded in the
// binary, so the report stays one file a browser opens offline.
package report
