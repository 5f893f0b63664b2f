package exit

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	for _, c := range []struct {
		err     error
		code    int
		printed bool
	}{
		{nil, OK, false},
		{BadInput("bad run id %q", "a b"), Refused, true},
		{errors.New("git failed"), Refused, true},
		{&PartialError{errors.New("lock held")}, Partial, true},
		{fmt.Errorf("clean: %w", &PartialError{errors.New("x")}), Partial, true},
		{&SilentError{Code: Incomplete}, Incomplete, false},
		{fmt.Errorf("wrapped: %w", &SilentError{Code: 7}), 7, false},
	} {
		if got := Code(c.err); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.code)
		}
		if got := Printed(c.err); got != c.printed {
			t.Errorf("Printed(%v) = %v, want %v", c.err, got, c.printed)
		}
	}
	var bad *BadInputError
	if err := BadInput("x %d", 1); !errors.As(err, &bad) || bad.Msg != "x 1" {
		t.Errorf("BadInput: %#v", err)
	}
}
