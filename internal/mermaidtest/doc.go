// Package mermaidtest renders the Mermaid graph of `git taskresume
// --format markdown` with the real renderer in a real browser: mmdc
// (@mermaid-js/mermaid-cli) driving the system's Chromium, as .ci/run
// installs them on Linux. It has no code of its own.
package mermaidtest
