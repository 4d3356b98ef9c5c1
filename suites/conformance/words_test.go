package conformance

import "testing"

// Gomega's failure texts, as it writes them (gomega v1.44), in plain words.
func TestPlainWords(t *testing.T) {
	for in, want := range map[string]string{
		"argocd-cmp-server would ignore part of plugin x-v1's plugin.yaml\nExpected\n    <[]string | len:2, cap:2>: [\n        \"unknown field \\\"stringdefault\\\"\",\n        \"announcement 15 has no name\",\n    ]\nto be empty":                                           "argocd-cmp-server would ignore part of plugin x-v1's plugin.yaml\n- unknown field \"stringdefault\"\n- announcement 15 has no name",
		"generating sample web\nUnexpected error:\n    <*errors.errorString | 0x2d1fde81e3c0>: \n    boom: the thing\n    {s: \"boom: the thing\"}\noccurred":                                                                                                                    "generating sample web\nboom: the thing",
		"Unexpected error:\n    <*fmt.wrapError | 0x2d1fde82e540>: \n    wrapped: inner\n    {\n        msg: \"wrapped: inner\",\n        err: <*errors.errorString | 0x2d1fde81e4a0>{s: \"inner\"},\n    }\noccurred":                                                           "wrapped: inner",
		"Timed out after 60.000s.\nExpected success, but got an error:\n    <*errors.errorString | 0x7fe7d3da3a0>: \n    application health is \"Progressing\": Job a/b: Suspended\n    {\n        s: \"application health is \\\"Progressing\\\": Job a/b: Suspended\",\n    }": "Timed out after 60.000s.\napplication health is \"Progressing\": Job a/b: Suspended",
		"sample web: these parameters do not reach\nExpected\n    <[]string | len:2, cap:2>: [\"a=b\", \"c, d\"]\nto be empty":                                                                                                                                                   "sample web: these parameters do not reach\n- a=b\n- c, d",
		"Expected\n    <int>: 3\nto equal\n    <int>: 4": "Expected\n    <int>: 3\nto equal\n    <int>: 4",
		"plain text\n(at plug.go:12)":                    "plain text\n(at plug.go:12)",
	} {
		if got := plainWords(in); got != want {
			t.Errorf("plainWords(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
