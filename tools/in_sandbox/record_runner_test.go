// judgegraph's completion record for Go tests in the testing package (see README.md): the record once they pass.
package __JG_PACKAGE__

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		jgRecord()
	}
	os.Exit(code)
}
