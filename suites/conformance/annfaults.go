package conformance

import (
	"context"
	"errors"
	"strings"

	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

// faultyAnnouncements asks for the announcements of the faulty-dynamic
// plugin in a mode; the error is the API's answer.
func faultyAnnouncements(ctx context.Context, s *Suite, mode string) ([]Announcement, *dsl.APIError) {
	anns, err := announcements(ctx, s, RoleFaultyDynamic, str("mode", mode))
	if err == nil {
		return anns, nil
	}
	var apiErr *dsl.APIError
	gomega.Expect(errors.As(err, &apiErr)).To(gomega.BeTrue(), "appdetails failed without an API answer: %v", err)
	return nil, apiErr
}

var annDynamicFails = Check{
	ID: "ANN-006", Title: "a dynamic command that fails surfaces an error carrying the plugin's own message",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleFaultyDynamic},
	Test: func(ctx context.Context, s *Suite) {
		anns, apiErr := faultyAnnouncements(ctx, s, "fail")
		gomega.Expect(apiErr).NotTo(gomega.BeNil(), "the dynamic command failed, but appdetails answered %v", names(anns))
		// What the user needs is the plugin's stderr, not just "exit status 1".
		gomega.Expect(apiErr.Message).To(gomega.ContainSubstring(faulty.FailMessage))
	},
}

var annDynamicInvalidJSON = Check{
	ID: "ANN-007", Title: "a dynamic command that prints invalid JSON surfaces an error saying so",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleFaultyDynamic},
	Test: func(ctx context.Context, s *Suite) {
		anns, apiErr := faultyAnnouncements(ctx, s, "invalid-json")
		gomega.Expect(apiErr).NotTo(gomega.BeNil(), "the dynamic command printed invalid JSON, but appdetails answered %v", names(anns))
		msg := strings.ToLower(apiErr.Message)
		gomega.Expect(strings.Contains(msg, "json") || strings.Contains(msg, "unmarshal")).To(gomega.BeTrue(),
			"the error does not say the output is not JSON: %s", apiErr.Message)
	},
}

var annNameless = Check{
	ID: "ANN-008", Title: "an announcement without a name is rejected with a validation error",
	Area: Announcements, Level: Provisional, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleFaultyDynamic},
	// Provisional: the proposal (Q/A 5) promises a validation error in the
	// cmp-server; Argo CD does not validate names and passes the announcement on.
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		anns, apiErr := faultyAnnouncements(ctx, s, "nameless")
		gomega.Expect(apiErr).NotTo(gomega.BeNil(), "no validation error; announced: %+v", anns)
		gomega.Expect(strings.ToLower(apiErr.Message)).To(gomega.ContainSubstring("name"), "the error does not say what is invalid")
	},
}
