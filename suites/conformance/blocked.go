package conformance

import (
	"regexp"
)

// A check that needs what another check judges (the sample generates,
// which PLUG-002 judges) and finds it missing cannot judge its own
// property: it fails with CannotJudge's words, and the report counts the
// cause once, under the check that owns it (Result.BlockedBy).

// cannotJudge matches CannotJudge's message and names the owner.
var cannotJudge = regexp.MustCompile(`could not judge: ([A-Z]+-[0-9]+) owns the cause: `)

// CannotJudge is the failure message of a check whose precondition, judged
// by the check owner, does not hold.
func CannotJudge(owner, why string) string {
	return "could not judge: " + owner + " owns the cause: " + why
}

// blockedBy is the owner CannotJudge named in a failure message, or "".
func blockedBy(msg string) string {
	if m := cannotJudge.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}
