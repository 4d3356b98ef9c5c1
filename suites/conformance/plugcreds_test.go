package conformance

import (
	"encoding/base64"
	"testing"
)

func TestLeakedIn(t *testing.T) {
	const pw = "s3cr3t-P4ssw0rd-0f-the-run"
	b64 := base64.StdEncoding.EncodeToString
	for name, tc := range map[string]struct {
		text string
		want bool
	}{
		"as it is":                        {`{"data":{"token":"` + pw + `"}}`, true},
		"a Secret's value":                {`{"data":{"password":"` + b64([]byte(pw)) + `"}}`, true},
		"inside an encoded docker config": {b64([]byte(`{"auths":{"h":{"password":"` + pw + `"}}}`)), true},
		"at each offset, URL alphabet":    {base64.RawURLEncoding.EncodeToString([]byte("ab" + pw + "zz")), true},
		"a digest of it":                  {"3f9a0c1e5b7d2a4c6e8f0a1b3c5d7e9f", false},
		"another password":                {b64([]byte("s3cr3t-P4ssw0rd-0f-another")), false},
	} {
		got := leakedIn(map[string]string{"there": tc.text}, pw) != ""
		if got != tc.want {
			t.Errorf("%s: leakedIn = %t, want %t", name, got, tc.want)
		}
	}
	if leakedIn(map[string]string{"there": "anything"}, "") != "" {
		t.Error("an empty secret leaks nowhere")
	}
}

func TestBase64CoresShortSecret(t *testing.T) {
	// Too short to tell from chance: only the plain form is searched.
	if got := base64Cores("ab"); len(got) != 0 {
		t.Errorf("base64Cores(ab) = %q, want none", got)
	}
}

func TestSSHKeyBody(t *testing.T) {
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nshort\nthe-longest-line-of-the-body\n-----END OPENSSH PRIVATE KEY-----\n"
	if got := sshKeyBody(pem); got != "the-longest-line-of-the-body" {
		t.Errorf("sshKeyBody = %q", got)
	}
}
