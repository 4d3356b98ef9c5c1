// Command cmp-faulty is the program of the plugins that misbehave on request:
//
//	cmp-faulty parameters   the dynamic announcement command (its "mode" parameter)
//	cmp-faulty generate     generate (the fault named by the app's cmp-fault file)
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

func main() {
	if len(os.Args) != 2 {
		usage()
	}
	switch os.Args[1] {
	case "parameters":
		if err := faulty.Announce(faulty.Mode(os.Getenv("ARGOCD_APP_PARAMETERS")), os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
	case "generate":
		out := bufio.NewWriterSize(os.Stdout, 1<<20)
		hang := func() {
			out.Flush()
			faulty.RecordHang(os.Getenv(faulty.StopRecordEnv))
			// Until argocd-cmp-server kills it (a timer, unlike select{},
			// is not a deadlock the Go runtime would end).
			time.Sleep(math.MaxInt64)
		}
		crash := func() {
			out.Flush()
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(math.MaxInt64)
		}
		if err := faulty.Generate(".", out, hang, crash); err != nil {
			fmt.Fprintln(os.Stderr, "cmp-faulty:", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cmp-faulty parameters|generate")
	os.Exit(2)
}
