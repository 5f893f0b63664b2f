package gitcmd

// LongRange sets how many levels a range must span for ChangesSince to
// read the filters, and returns what puts it back.
func LongRange(n uint32) func() {
	old := longRange
	longRange = n
	return func() { longRange = old }
}

// MessageTrailers is messageTrailers: what git prints for a message's
// Run-Id and Task-Id trailers.
var MessageTrailers = messageTrailers

// SubjectOf is subjectOf of a message: git's %s and %b.
func SubjectOf(msg string) (string, string) { return subjectOf(msg) }
