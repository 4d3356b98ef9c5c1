package main

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// generateScanningLines renders as the plain plugin does, then passes its
// output through a line filter built on bufio.Scanner with a 4 KiB buffer
// and no look at Scanner.Err: a common Go mistake, which stops silently at
// the first line longer than the buffer and drops it and all that follows.
func generateScanningLines() error {
	var out bytes.Buffer
	if err := plain.Generate(".", &out); err != nil {
		return err
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		fmt.Println(sc.Text())
	}
	return nil
}
