package gitcmd

// LongRange sets how many levels a range must span for ChangesSince to
// read the filters, and returns what puts it back.
func LongRange(n uint32) func() {
	old := longRange
	longRange = n
	return func() { longRange = old }
}
