// Package ui holds what both commands share in how they write for people:
// counts, times and sizes (format.go), colour (style.go), text made safe to
// print (display.go), shell quoting (quote.go) and abbreviations
// (abbrev.go), written the same way everywhere.
package ui
