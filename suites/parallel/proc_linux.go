package parallel

import "syscall"

// childProcAttr makes a share's process receive SIGINT when the parallel
// run's process dies (as on Ctrl-C, it then tears its environment down).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
}
