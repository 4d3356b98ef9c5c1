package reports

import (
	"encoding/xml"
	"strconv"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// suiteName names both the JUnit <testsuites> and its first <testsuite>; a
// self-test run adds a second, selfTestSuiteName.
const suiteName = "cmp-conformance"

// provisionalSkipPrefix marks a failed Provisional check in JUnit.
const provisionalSkipPrefix = "provisional (does not decide the verdict): "

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
}

// junitMessage carries a one-line summary in the message attribute (what CI
// UIs show in lists) and the full text as the element body. The body is
// escaped chardata rather than CDATA because encoding/xml then replaces
// characters XML forbids (e.g. ANSI colour escapes in tool output).
type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// renderJUnit renders r as JUnit XML, one <testcase> per result. Self-test
// results, if any, form a second <testsuite> (see junitSelfTestSuite), and the
// <testsuites> totals cover both.
//
// A failed Provisional check is reported as <skipped>, not <failure>: it
// documents where released Argo CD departs from the spec, it does not decide
// the verdict, and CI gating on junit.xml must not fail because of it. Its
// classname carries a "[Provisional]" suffix so it stays recognisable.
//
// A run-level error or interruption becomes an extra <error> test case, so
// CI reading only junit.xml cannot mistake a run that never got to its checks
// for a green one.
func renderJUnit(r *v1alpha1.ConformanceReport) ([]byte, error) {
	suite := junitSuite{
		Name: suiteName,
		Time: seconds(r.Timings.SuiteSeconds),
		Properties: []junitProperty{
			{Name: "verdict", Value: r.Summary.Verdict},
			{Name: "runID", Value: r.Metadata.RunID},
			{Name: "runtime", Value: r.Environment.Runtime},
			{Name: "argocdVersion", Value: r.Environment.ArgoCDVersion},
			{Name: "kubernetesVersion", Value: r.Environment.KubernetesVersion},
		},
	}
	if !r.Metadata.Date.IsZero() {
		suite.Timestamp = r.Metadata.Date.UTC().Format("2006-01-02T15:04:05")
	}
	for _, res := range r.Results {
		suite.Cases = append(suite.Cases, junitResult(res))
	}
	if r.Error != "" {
		suite.Cases = append(suite.Cases, junitCase{
			Classname: suiteName, Name: "run: error", Time: seconds(0),
			Error: &junitMessage{Message: text.FirstLine(r.Error), Body: r.Error},
		})
	}
	if r.Interrupted {
		const msg = "the run was interrupted before every check finished"
		suite.Cases = append(suite.Cases, junitCase{
			Classname: suiteName, Name: "run: interrupted", Time: seconds(0),
			Error: &junitMessage{Message: msg},
		})
	}
	suites := []junitSuite{suite}
	if len(r.SelfTest) > 0 {
		suites = append(suites, junitSelfTestSuite(r))
	}
	doc := junitSuites{Name: suiteName, Time: seconds(r.Timings.TotalSeconds)}
	for i := range suites {
		s := &suites[i]
		for _, c := range s.Cases {
			s.Tests++
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Error != nil:
				s.Errors++
			case c.Skipped != nil:
				s.Skipped++
			}
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	doc.Suites = suites
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

func junitResult(res v1alpha1.Result) junitCase {
	c := junitCase{
		Classname: res.Area,
		Name:      junitID(res.ID, res.Hop),
		Time:      seconds(res.DurationSeconds),
	}
	if res.Title != "" {
		c.Name += ": " + res.Title
	}
	provisional := res.Level == v1alpha1.LevelProvisional
	if provisional {
		c.Classname += " [Provisional]"
	}
	switch res.State {
	case v1alpha1.StateFailed:
		if provisional {
			c.Skipped = &junitMessage{Message: provisionalSkipPrefix + text.FirstLine(res.Message), Body: res.Message}
		} else {
			c.Failure = &junitMessage{Message: text.FirstLine(res.Message), Body: res.Message}
		}
	case v1alpha1.StateNotSupported:
		c.Skipped = &junitMessage{Message: "not-supported: " + text.FirstLine(res.Message), Body: res.Message}
	case v1alpha1.StateNotApplicable:
		c.Skipped = &junitMessage{Message: "not-applicable: " + text.FirstLine(res.Message), Body: res.Message}
	case v1alpha1.StateSkipped:
		c.Skipped = &junitMessage{Message: text.FirstLine(res.Message), Body: res.Message}
	}
	return c
}

// junitID names a check in a test case; an upgrade run records one result
// per hop, so the hop ("UPG-001 [v3.0.23 -> v3.2.11]") keeps names unique.
func junitID(id, hop string) string {
	if hop == "" {
		return id
	}
	return id + " [" + hop + "]"
}

// seconds formats a duration the way JUnit consumers parse it.
func seconds(s float64) string {
	return strconv.FormatFloat(s, 'f', 3, 64)
}
