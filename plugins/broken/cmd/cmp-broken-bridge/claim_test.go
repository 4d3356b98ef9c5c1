package main

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The stand-in answers as a plugin that claims every repository and
// renders none, over the connection the bridge hands the repo-server.
func TestStandInClaimsEveryRepositoryAndRendersNone(t *testing.T) {
	stand := newStandIn()
	conn, err := grpc.NewClient("passthrough:///stand-in", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return stand.connect(ctx, errors.New("connection refused"))
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pluginclient.NewConfigManagementPluginServiceClient(conn)
	ctx := context.Background()

	cfg, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{})
	if err != nil || !cfg.IsDiscoveryConfigured {
		t.Fatalf("CheckPluginConfiguration = %v, %v; want discovery configured", cfg, err)
	}
	match, err := client.MatchRepository(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := match.Send(&pluginclient.AppStreamRequest{}); err != nil {
		t.Fatal(err)
	}
	claimed, err := match.CloseAndRecv()
	if err != nil || !claimed.IsSupported {
		t.Fatalf("MatchRepository = %v, %v; want the repository claimed", claimed, err)
	}
	gen, err := client.GenerateManifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.CloseAndRecv()
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "claims every repository") {
		t.Fatalf("GenerateManifest: %v; want Unavailable with %q", err, downMessage)
	}
}
