package manpage

import (
	"io"
	"strings"
)

// Text writes the whole manual as plain text of at most width columns (a
// longer word or code line overflows): what `git x help` and `git-x --help`
// print, since git hands --help to man and never to the program.
func (p *Page) Text(w io.Writer, width int) error {
	const ind, sub = 4, 8
	var b strings.Builder
	fill := func(s string, indent, hang int) {
		pad := strings.Repeat(" ", indent)
		for i, l := range wrap(plain(keepTogether(s)), width-indent-hang) {
			if i > 0 {
				l = strings.Repeat(" ", hang) + l
			}
			b.WriteString(pad + unkeep(l) + "\n")
		}
	}
	b.WriteString("NAME\n")
	fill(p.Name+" - "+p.Summary, ind, 0)
	b.WriteString("\nSYNOPSIS\n")
	for _, u := range p.Synopsis {
		fill(u, ind, 4)
	}
	for _, s := range p.Sections {
		b.WriteString("\n" + strings.ToUpper(s.Title) + "\n")
		for i, bl := range s.Blocks {
			if i > 0 {
				b.WriteString("\n")
			}
			switch v := bl.(type) {
			case Para:
				fill(string(v), ind, 0)
			case Sub:
				b.WriteString("  " + string(v) + "\n")
			case Item:
				fill(v.Tag, ind, 4)
				for j, para := range paragraphs(v.Text) {
					if j > 0 {
						b.WriteString("\n")
					}
					fill(para, sub, 0)
				}
				if len(v.Code) > 0 {
					b.WriteString("\n")
				}
				for _, l := range v.Code {
					b.WriteString(strings.Repeat(" ", sub+4) + l + "\n")
				}
			case Option:
				fill(v.Tag(), ind, 4)
				body := v.Long
				if body == "" {
					body = v.Short
				}
				for j, para := range paragraphs(body) {
					if j > 0 {
						b.WriteString("\n")
					}
					fill(para, sub, 0)
				}
			case Code:
				for _, l := range v {
					if l == "" {
						b.WriteString("\n")
						continue
					}
					b.WriteString(strings.Repeat(" ", sub) + l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
