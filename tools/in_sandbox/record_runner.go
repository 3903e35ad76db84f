// judgegraph's completion record for Go test programs (see README.md).
package main

import (
	"os"
	"strconv"
)

var jgMasked = []byte{__JG_MASKED__}
var jgMask = []byte{__JG_MASK__}

func main() {
	jgTestMain()
	jgRecord()
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
