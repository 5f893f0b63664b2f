package testbin_test

import (
	"os"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, testbin.Options{})) }
