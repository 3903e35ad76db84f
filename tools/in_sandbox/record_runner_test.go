// judgegraph's completion record for Go tests in the testing package (see README.md).
package __JG_PACKAGE__

import (
	"os"
	"strconv"
	"testing"
)

var jgMasked = []byte{__JG_MASKED__}
var jgMask = []byte{__JG_MASK__}

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		jgRecord()
	}
	os.Exit(code)
}

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
