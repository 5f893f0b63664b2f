package manpage

import (
	"fmt"
	"io"
	"strings"
)

// Roff writes the page for man(1), section 1: git turns `git x --help`
// into `man git-x`, which looks in section 1.
func (p *Page) Roff(w io.Writer) error {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	line(fmt.Sprintf(`.TH "%s" "1" "" "%s %s" "Git Manual"`, strings.ToUpper(p.Name), p.Name, p.Version))
	// Plain ASCII quotes and no hyphenation: what a reader copies from the
	// page must be what the command accepts.
	line(".nh")
	line(".ad l")
	line(".SH NAME")
	line(text(p.Name) + ` \- ` + inline(p.Summary))
	line(".SH SYNOPSIS")
	cmd := p.Command()
	line(".PD 0")
	for _, u := range p.Synopsis {
		// A hanging indent: a long usage line continues under its options.
		line(".HP 4")
		if rest, ok := strings.CutPrefix(u, cmd); ok {
			line(lead(`\fB` + text(cmd) + `\fR ` + inline(rest)))
		} else {
			line(lead(inline(u)))
		}
	}
	line(".PD")
	for _, s := range p.Sections {
		line(".SH " + text(strings.ToUpper(s.Title)))
		first := true
		for _, bl := range s.Blocks {
			switch v := bl.(type) {
			case Para:
				line(".PP")
				line(lead(inline(string(v))))
			case Sub:
				line(".SS " + text(string(v)))
			case Item:
				line(".TP")
				line(lead(inline(v.Tag)))
				for i, para := range paragraphs(v.Text) {
					if i > 0 {
						line(".IP")
					}
					line(lead(inline(para)))
				}
				if len(v.Code) > 0 {
					line(".IP")
					line(".nf")
					for _, l := range v.Code {
						line(lead(`\ \ \ \ ` + literal(l)))
					}
					line(".fi")
				}
			case Option:
				line(".TP")
				line(lead(optionTag(v)))
				body := v.Long
				if body == "" {
					body = v.Short
				}
				for i, para := range paragraphs(body) {
					if i > 0 {
						line(".IP")
					}
					line(lead(inline(para)))
				}
			case Code:
				if !first {
					line(".PP")
				}
				line(".RS 4")
				line(".nf")
				for _, l := range v {
					line(lead(literal(l)))
				}
				line(".fi")
				line(".RE")
			}
			first = false
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// optionTag is the option's heading: names in bold, the argument in italics.
func optionTag(o Option) string {
	name := o.Tag()
	if o.Arg != "" {
		name = strings.TrimSuffix(name, " "+o.Arg)
	}
	parts := strings.Split(name, ", ")
	for i, n := range parts {
		parts[i] = `\fB` + literal(n) + `\fR`
	}
	out := strings.Join(parts, ", ")
	if o.Arg != "" {
		out += ` \fI` + literal(o.Arg) + `\fR`
	}
	return out
}

// paragraphs splits text at blank lines.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.Join(strings.Fields(p), " "))
		}
	}
	return out
}

// inline escapes running text, showing `quoted` input in bold.
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			// Input is not broken across lines: a blank in it is unpaddable.
			b.WriteString(`\fB` + strings.ReplaceAll(literal(part), " ", `\ `) + `\fR`)
		} else {
			b.WriteString(text(part))
		}
	}
	return b.String()
}

// text escapes prose: a backslash is printed, a hyphen stays a minus sign
// (option names copied from the page must work).
func text(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e || r < 0x20:
			// By code point: the page is read as ASCII by some formatters.
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// literal escapes input shown as typed: quotes stay straight quotes.
func literal(s string) string {
	s = text(s)
	s = strings.ReplaceAll(s, "'", `\(aq`)
	return strings.ReplaceAll(s, "`", `\(ga`)
}

// lead keeps a line that starts with a control character ("." or "'")
// from being read as a request.
func lead(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		return `\&` + s
	}
	return s
}
