// Package runner holds what a run of the suite needs around the checks: the
// run's lifecycle (Session: its report opened, the environment brought up
// and connected to, taken down, the report written), a logged-in connection
// to the environment's Argo CD, the DSL environment the checks see, and the
// report's provenance and environment. The cmp-conformance binary (run,
// certify) and the certify library (suites/certify) run through the same
// Session.
package runner

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"

	"github.com/argoproj/argo-cd/v3/pkg/apiclient"
	accountpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/account"
	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	certificatepkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/certificate"
	repocredspkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/repocreds"
	repositorypkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/repository"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/fixtures/uipage"
)

// API is a logged-in connection to Argo CD's API: one gRPC channel its
// clients share, which redials by itself when its connection is lost (the
// server restarted at an upgrade hop, or the channel went idle).
type API struct {
	Apps      applicationpkg.ApplicationServiceClient
	Repos     repositorypkg.RepositoryServiceClient
	RepoCreds repocredspkg.RepoCredsServiceClient
	Certs     certificatepkg.CertificateServiceClient
	Accounts  accountpkg.AccountServiceClient
	Token     string
	conn      *grpc.ClientConn
	// addr and secure reach argocd-server again, as another user (As).
	addr   string
	secure bool
}

// Connect logs in as admin, opens the clients the checks use, and makes Argo
// CD trust the run's git server where it has credentialed listeners.
func Connect(ctx context.Context, env *environment.Environment) (_ *API, err error) {
	var addr, token string
	secure := env.Installed != nil
	if secure {
		// argocd-server in the cluster serves TLS with the certificate it
		// made itself, through a port-forward on 127.0.0.1.
		addr = env.Installed.ServerAddr
		token, err = env.Installed.Login(ctx)
	} else {
		addr = env.ArgoCD.ServerAddr
		token, err = env.ArgoCD.Login(ctx)
	}
	if err != nil {
		return nil, err
	}
	conn, err := dial(addr, token, secure)
	if err != nil {
		return nil, fmt.Errorf("argo CD API client: %w", err)
	}
	api := &API{Apps: applicationpkg.NewApplicationServiceClient(conn), Repos: repositorypkg.NewRepositoryServiceClient(conn),
		RepoCreds: repocredspkg.NewRepoCredsServiceClient(conn), Certs: certificatepkg.NewCertificateServiceClient(conn),
		Accounts: accountpkg.NewAccountServiceClient(conn), Token: token, conn: conn, addr: addr, secure: secure}
	if err := trustGitServer(ctx, env, api); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return api, nil
}

// dial opens the API's channel as Argo CD's client does (its token on every
// call, its message size limit), but not through Argo CD's apiclient: that
// one dials a single socket up front and hands gRPC a dialer that returns it
// every time, so once gRPC has closed it (idle after 30 minutes without a
// call, or the server gone) every redial gets the closed socket back and
// each call fails with "use of closed network connection". A CLI never lives
// that long; a catalogue run on a slow machine does (CRED-002 failed so,
// the only check that uses the credential client, 35 minutes into a run).
// Calls wait for the channel to be ready within their own deadline rather
// than fail while it redials: the harness's connection is not the subject.
func dial(addr, token string, secure bool, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if secure {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: true}) // #nosec G402 -- the server's own certificate, on 127.0.0.1
	}
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithPerRPCCredentials(bearer(token)),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true),
			grpc.MaxCallRecvMsgSize(apiclient.MaxGRPCMessageSize), grpc.MaxCallSendMsgSize(apiclient.MaxGRPCMessageSize)),
	}, extra...)
	return grpc.NewClient("passthrough:///"+addr, opts...)
}

// bearer is Argo CD's session token on every call, in the metadata key its
// server reads (apiclient.MetaDataTokenKey).
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{apiclient.MetaDataTokenKey: string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// trustGitServer adds the git server's CA as a custom TLS certificate and its
// SSH host key as a known host, through Argo CD's certificate API as
// `argocd cert add-tls` and `add-ssh` do, and has the runtime project them
// where the repo-server reads them. Upsert: a reconnect repeats it.
func trustGitServer(ctx context.Context, env *environment.Environment, api *API) error {
	if env.Git == nil || !env.Git.Secure() || env.ArgoCD == nil {
		return nil
	}
	id, known := env.Git.Identity(), env.Git.SSHKnownHost()
	_, err := api.Certs.CreateCertificate(ctx, &certificatepkg.RepositoryCertificateCreateRequest{Upsert: true,
		Certificates: &v1alpha1.RepositoryCertificateList{Items: []v1alpha1.RepositoryCertificate{
			{ServerName: env.Git.HTTPSHost(), CertType: "https", CertData: id.CAPEM},
			{ServerName: known.Host, CertType: "ssh", CertSubType: known.Type, CertData: []byte(known.Key)},
		}}})
	if err != nil {
		return fmt.Errorf("adding the git server's CA and SSH host key to Argo CD: %w", err)
	}
	return env.ArgoCD.ProjectCertificates(ctx)
}

// Close closes the API's channel.
func (a *API) Close() error { return a.conn.Close() }

// As opens the application API as the bearer of token (a local account's,
// not the admin's): what a check of Argo CD's RBAC calls through.
func (a *API) As(token string) (applicationpkg.ApplicationServiceClient, io.Closer, error) {
	conn, err := dial(a.addr, token, a.secure)
	if err != nil {
		return nil, nil, err
	}
	return applicationpkg.NewApplicationServiceClient(conn), conn, nil
}

// DSL is the environment as the checks see it, through api.
func DSL(env *environment.Environment, api *API) (*dsl.Env, error) {
	kc, err := kube.NewClient(env.Cluster.REST)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(env.Cluster.REST)
	if err != nil {
		return nil, err
	}
	e := dsl.Env{Apps: api.Apps, Repos: api.Repos, RepoCreds: api.RepoCreds, Accounts: api.Accounts, AppsAs: api.As, Kube: kc, Clientset: cs, Git: env.Git, Sources: env.Sources,
		ArgoCDVersion: env.Tools.ArgoCDVersion, KubernetesVersion: env.Cluster.KubernetesVersion, Runtime: env.Config.Runtime,
		CLIPath: env.Tools.Binaries[toolchain.ArgoCD].Path, Token: api.Token,
		LeaveNamespaces: env.DeletesCluster()}
	if in := env.Installed; in != nil {
		e.ArgoCDNamespace, e.ServerURL = in.Namespace, "https://"+in.ServerAddr
		e.PluginFiles, e.RepoServer, e.Controller = in, in, in
		e.Cannot = installedCannot(in)
		if env.Git != nil && env.Git.Secure() {
			// The credentialed doors: kind's git server container, or
			// the existing runtime's relay (kindGit, existingUp).
			delete(e.Cannot, dsl.AbilityGitCredentials)
		}
		if len(in.Services) > 0 {
			e.Services = in
		}
		if in.ScratchDir != "" { // kind: each sidecar's folder of the node's
			delete(e.Cannot, dsl.AbilityPluginScratch)
		}
		// The run installs its extensions with Argo CD (clusterExtensions).
		if env.UIServed {
			e.UIPage, e.UIFolders = e.ServerURL+"/"+uipage.Name, env.UIFolders
		}
		if _, err := uipage.Browser(); err != nil {
			e.UIPage, e.Cannot[dsl.AbilityUIExtensions] = "", err.Error()
		}
		return dsl.NewEnv(e), nil
	}
	e.ArgoCDNamespace, e.ServerURL = env.ArgoCD.Namespace, "http://"+env.ArgoCD.ServerAddr
	e.Services, e.PluginFiles, e.Discovery, e.RepoServer, e.Controller = env.ArgoCD, env.ArgoCD, env.ArgoCD, env.ArgoCD, env.ArgoCD
	e.Shelf = env.ArgoCD
	// Installed Argo CD keeps its server's deadline: rolling argocd-server
	// out costs more than the wait it would shorten.
	e.Server = env.ArgoCD
	e.Cannot = map[dsl.Ability]string{}
	if why := env.ArgoCD.ShmUnshared; why != "" {
		e.Cannot[dsl.AbilityPodShm] = why
	}
	e.UIPage, e.UIFolders = env.ArgoCD.UIPage(uipage.Name), env.UIFolders
	if _, err := uipage.Browser(); err != nil {
		e.UIPage, e.Cannot[dsl.AbilityUIExtensions] = "", err.Error()
	} else if why := env.ArgoCD.UIUnserved; why != "" {
		e.Cannot[dsl.AbilityUIExtensions] = why
	}
	return dsl.NewEnv(e), nil
}

// installedCannot is what a run cannot do with Argo CD installed in a
// cluster: InstalledCannot, and what this cluster and install lack.
func installedCannot(in *argocd.Installed) map[dsl.Ability]string {
	out := maps.Clone(InstalledCannot)
	if in.NodeExec == nil {
		// An ephemeral container shows what is in a plugin's container;
		// what changed in its own file system, only its node knows.
		out[dsl.AbilityPluginLeftovers] = "what a plugin's container changed is read from its node, and this cluster's nodes are not containers of this host (kind's are)"
		if in.DebugImage == "" {
			out[dsl.AbilityPluginFiles] = "a plugin's container is looked into from an ephemeral container, and no debug image was pushed (install busybox-static)"
			out[dsl.AbilityPluginScratch] = "a sidecar's /tmp is read from an ephemeral container, and no debug image was pushed (install busybox-static)"
		} else {
			delete(out, dsl.AbilityPluginScratch) // read from the debug container
		}
	}
	if len(in.Services) == 0 {
		out[dsl.AbilityPluginServices] = "no plugin served over the network runs in the cluster (--plugin-image service=IMAGE runs one)"
	}
	return out
}

// InstalledCannot is what a run cannot do with an Argo CD installed in a
// cluster from its manifests (the kind and existing runtimes), and why.
var InstalledCannot = map[dsl.Ability]string{
	dsl.AbilityPluginDiscovery: "the plugins' sockets are in the repo-server's pod, not on this host",
	dsl.AbilityPluginScratch:   "a sidecar's /tmp is an emptyDir of its pod, which this host cannot read",
	dsl.AbilityGitCredentials:  "the credentialed git doors are opened by a run's own git server; `env up`'s serves plain HTTP only",
}

// RuntimeLacks is, per runtime, what it cannot give the checks even when
// set up as `make conformance` sets it up, each with why (a condition in
// the words where it depends on the machine or the flags): the reference
// pages name the runtimes that cannot run a check from it.
func RuntimeLacks() map[string]map[dsl.Ability]string {
	existing := maps.Clone(InstalledCannot)
	delete(existing, dsl.AbilityGitCredentials) // through the relay's doors
	existing[dsl.AbilityUIExtensions] = "only where headless Chromium is not installed"
	existing[dsl.AbilityPluginLeftovers] = "what a plugin's container changed is read from its node, and a cluster you give has no node this host can look into"
	existing[dsl.AbilityPluginFiles] = "without a debug image (busybox-static installed) no ephemeral container can look into a plugin's container"
	existing[dsl.AbilityPluginScratch] = "without a debug image (busybox-static installed) no ephemeral container can read a sidecar's /tmp"
	existing[dsl.AbilityPluginServices] = "without --plugin-image service=IMAGE no plugin served over the network runs in the cluster"
	return map[string]map[dsl.Ability]string{
		"embedded": {dsl.AbilityPodShm: "only where the kernel cannot make an idmapped mount (the run's notes say so)",
			dsl.AbilityUIExtensions: "only where the run is not root on Linux (argocd-server's /tmp/extensions is then the host's) or headless Chromium is not installed"},
		"kind":     kindLacks(),
		"existing": existing,
	}
}

// kindLacks is what the kind runtime cannot give: what an installed Argo CD
// cannot, but for the credentialed git doors its git server's container
// opens (kindGit) and the scratch folder its node mounts for each sidecar
// (kindConfig).
func kindLacks() map[dsl.Ability]string {
	out := maps.Clone(InstalledCannot)
	delete(out, dsl.AbilityGitCredentials)
	delete(out, dsl.AbilityPluginScratch)
	out[dsl.AbilityUIExtensions] = "only where headless Chromium is not installed"
	return out
}
