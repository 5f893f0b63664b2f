// Package manpage describes a command's manual once and renders it three
// ways: roff for man(1), plain text for a terminal without man, and the
// short -h summary. Roff is written here rather than through a Markdown
// converter, which takes "<run>" for an HTML tag and drops it.
//
// Text may quote literal input between backquotes (`git taskresume x1`):
// roff shows it in bold, plain text without the quotes.
package manpage

import (
	"fmt"
	"io"
	"strings"
)

// Page is one command's manual.
type Page struct {
	// Name is the program's name: "git-taskresume".
	Name string
	// Summary is the NAME line's text after the dash.
	Summary string
	// Synopsis are the usage lines, each one way to call the command.
	Synopsis []string
	// Brief is the description -h shows: at most two lines of 80 columns.
	Brief string
	// Version goes in the page's footer.
	Version string
	// Sections follow SYNOPSIS in order: DESCRIPTION, OPTIONS, ...
	Sections []Section
}

// Section is a top-level part of the page.
type Section struct {
	Title  string // upper case by convention: "EXIT STATUS"
	Blocks []Block
}

// Block is a piece of a section: Para, Sub, Item, Code or Option.
type Block interface{ isBlock() }

// Para is a paragraph of running text, refilled to the width.
type Para string

// Sub is a subsection heading.
type Sub string

// Item is a tagged paragraph: the tag on its own line, the text indented
// under it (an exit code, a file, a plan form).
type Item struct {
	Tag  string
	Text string
	Code []string // examples shown as typed under the text
}

// Code is lines shown exactly as written (commands, plan excerpts).
type Code []string

// Option documents one flag. Short is its one line in -h; Long its text in
// the manual (Short when empty).
type Option struct {
	Names []string // "--dry-run", "-n": the first is the one -h aligns on
	Arg   string   // "DURATION", "[PATH]"; "" for a switch
	Short string
	Long  string
	// NoSummary leaves the option out of -h (help, --man, --version).
	NoSummary bool
}

func (Para) isBlock()   {}
func (Sub) isBlock()    {}
func (Item) isBlock()   {}
func (Code) isBlock()   {}
func (Option) isBlock() {}

// Options lists every option the page documents, in order.
func (p *Page) Options() []Option {
	var out []Option
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			if o, ok := b.(Option); ok {
				out = append(out, o)
			}
		}
	}
	return out
}

// Command is how a user types the program through git: "git taskresume".
func (p *Page) Command() string {
	return strings.Replace(p.Name, "git-", "git ", 1)
}

// Tag is the option's heading: "-n, --dry-run" with its argument.
func (o Option) Tag() string {
	// Short names first, as git's own pages write them.
	var short, long []string
	for _, n := range o.Names {
		if strings.HasPrefix(n, "--") {
			long = append(long, n)
		} else {
			short = append(short, n)
		}
	}
	names := append(short, long...)
	tag := strings.Join(names, ", ")
	if o.Arg != "" {
		tag += " " + o.Arg
	}
	return tag
}

// Usage writes the -h text: usage lines, the brief description under
// them, one line per option, and where the full manual is; short enough
// for one screen.
func (p *Page) Usage(w io.Writer) error {
	var b strings.Builder
	for i, u := range p.Synopsis {
		lead := "usage: "
		if i > 0 {
			lead = "   or: "
		}
		b.WriteString(lead + plain(u) + "\n")
	}
	for _, l := range wrap(plain(p.Brief), 80) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	opts := []Option{}
	width := 0
	for _, o := range p.Options() {
		if o.NoSummary {
			continue
		}
		opts = append(opts, o)
		width = max(width, len(o.Tag()))
	}
	for _, o := range opts {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, o.Tag(), plain(o.Short))
	}
	fmt.Fprintf(&b, "Full manual: %s help\n", p.Command())
	_, err := io.WriteString(w, b.String())
	return err
}

// keepTogether marks the blanks inside `quoted` input, which a line must
// not break at; unkeep turns them back into blanks.
func keepTogether(s string) string {
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = strings.ReplaceAll(parts[i], " ", "\x00")
	}
	return strings.Join(parts, "`")
}

func unkeep(s string) string { return strings.ReplaceAll(s, "\x00", " ") }

// plain takes the backquotes off literal input.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// wrap fills text into lines of at most width columns (a longer word gets
// a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
