//go:build !linux

package parallel

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
