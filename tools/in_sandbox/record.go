// judgegraph's completion record for Go (see README.md): the token, written where the test's own code returned;
// called by record_runner.go (a test program) or record_runner_test.go (tests in the testing package).
package __JG_PACKAGE__

import (
	"os"
	"strconv"
)

var jgMasked = []byte{__JG_MASKED__}
var jgMask = []byte{__JG_MASK__}

func jgRecord() {
	fd, err := strconv.Atoi(os.Getenv("JG_RECORD_FD"))
	if err != nil {
		return
	}
	out := make([]byte, len(jgMask))
	for i := range out {
		out[i] = jgMasked[i] ^ jgMask[i]
	}
	f := os.NewFile(uintptr(fd), "record")
	if _, err := f.Write(out); err != nil {
		os.Exit(1)
	}
}
