package lsrefs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The pkt-line framing of git's protocols: four hex digits of length
// (the digits included), then the data; 0000 is a flush, 0001 a
// delimiter, 0002 the end of a response.
type pktKind int

const (
	pktData pktKind = iota
	pktFlush
	pktDelim
	pktEnd
)

type pkt struct {
	kind pktKind
	text string // without its trailing newline
}

type pktReader struct{ r *bufio.Reader }

func newPktReader(r io.Reader) *pktReader { return &pktReader{bufio.NewReaderSize(r, 64<<10)} }

// line reads one packet. An "ERR <message>" packet is the server's refusal,
// returned as an error (git says "remote error: <message>").
func (p *pktReader) line() (pkt, error) {
	var head [4]byte
	if _, err := io.ReadFull(p.r, head[:]); err != nil {
		return pkt{}, fmt.Errorf("the remote hung up before its ref list ended")
	}
	n, err := strconv.ParseUint(string(head[:]), 16, 16)
	if err != nil {
		return pkt{}, fmt.Errorf("bad packet length %q from the remote", head[:])
	}
	switch n {
	case 0:
		return pkt{kind: pktFlush}, nil
	case 1:
		return pkt{kind: pktDelim}, nil
	case 2:
		return pkt{kind: pktEnd}, nil
	case 3:
		return pkt{}, fmt.Errorf("bad packet length %q from the remote", head[:])
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(p.r, buf); err != nil {
		return pkt{}, fmt.Errorf("the remote hung up before its ref list ended")
	}
	text := string(bytes.TrimSuffix(buf, []byte("\n")))
	if msg, ok := strings.CutPrefix(text, "ERR "); ok {
		return pkt{}, fmt.Errorf("remote error: %s", msg)
	}
	return pkt{kind: pktData, text: text}, nil
}

// writePkt frames s as one packet.
func writePkt(w *bytes.Buffer, s string) {
	fmt.Fprintf(w, "%04x%s", len(s)+4, s)
}
