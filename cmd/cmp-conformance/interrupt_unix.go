//go:build linux || darwin

package main

import "golang.org/x/sys/unix"

// outputGone says whether one of the file descriptors fds is a pipe or
// socket that nothing reads any more.
func outputGone(fds ...int) bool {
	polled := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		polled[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	}
	if n, err := unix.Poll(polled, 0); err != nil || n == 0 {
		return false
	}
	for _, p := range polled {
		if p.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
