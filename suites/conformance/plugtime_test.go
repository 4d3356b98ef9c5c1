package conformance

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// PLUG-009 times again only what is over the budget, and at most
// timeBudgetTries generations.
func TestTimeGenerations(t *testing.T) {
	budget := 2 * time.Second
	for _, tc := range []struct {
		name  string
		times []time.Duration
		want  []time.Duration
	}{
		{"within at once", []time.Duration{time.Second, 9 * time.Second}, []time.Duration{time.Second}},
		{"exactly the budget", []time.Duration{budget, 9 * time.Second}, []time.Duration{budget}},
		{"slow once, then within", []time.Duration{5 * time.Second, time.Second, 9 * time.Second}, []time.Duration{5 * time.Second, time.Second}},
		{"over each time", []time.Duration{4 * time.Second, 3 * time.Second, 5 * time.Second, time.Second}, []time.Duration{4 * time.Second, 3 * time.Second, 5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			got, err := timeGenerations(budget, func() (time.Duration, error) { n++; return tc.times[n-1], nil })
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("timeGenerations = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	boom := errors.New("generation failed")
	got, err := timeGenerations(budget, func() (time.Duration, error) { return 0, boom })
	if !errors.Is(err, boom) || len(got) != 0 {
		t.Fatalf("a failing generation: %v, %v; want the error and no time", got, err)
	}
}
