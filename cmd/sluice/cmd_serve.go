package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

// shutdownGrace bounds a graceful stop: in-flight requests and the running
// batch get this long before they are cut off.
const shutdownGrace = 60 * time.Second

// crashLease bounds how long a sidecar killed mid-run (kill -9, OOM) keeps
// the SQLite job lease and its claimed batch: the work is done again within
// about this long of a restart (docs/sidecar.md#processing-and-cleanup-jobs), not after the store's
// defaults of 2 and 5 minutes. The job lock keeps runs apart, so a claim
// outliving its lease is not taken by another run while its holder still
// works on it; the lease is renewed every third of it.
const crashLease = 30 * time.Second

func init() {
	addCommand(&command{
		name:    "serve",
		summary: "run the webhook notification sidecar",
		run:     runServe,
	})
}

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "serve", "serve [--addr ADDR] [--store DSN] [--config FILE]")
	addr := fs.String("addr", "", "listen address (overrides CONN_ADDR; default 127.0.0.1:8080)")
	store := fs.String("store", "", "store DSN sqlite:<path> or postgres://… (overrides CONN_STORE)")
	config := fs.String("config", "", "YAML file of webhook sources (overrides CONN_CONFIG)")
	printed := false
	fs.Usage = func() {
		// flag.Parse and parseFlags both call Usage on --help: print once.
		if printed {
			return
		}
		printed = true
		w := env.stdout
		fmt.Fprint(w, "Usage: sluice serve [--addr ADDR] [--store DSN] [--config FILE]\n\n")
		fmt.Fprint(w, "Runs the notification sidecar: webhook intake, processing and cleanup jobs,\n")
		fmt.Fprint(w, "management API and metrics (see docs/sidecar.md). Stops gracefully on SIGTERM/SIGINT.\n")
		fmt.Fprint(w, "HMC's notifications arrive at POST /webhooks/notifications; --config adds sources\n")
		fmt.Fprint(w, "(Standard Webhooks, Stripe, GitHub, Shopify, Slack, HMAC-SHA256), each at its own\n")
		fmt.Fprint(w, "path with its signature scheme and body mapping (see docs/sidecar.md#sources).\n\nFlags:\n")
		fmt.Fprint(w, "  --addr ADDR     listen address (overrides CONN_ADDR)\n")
		fmt.Fprint(w, "  --store DSN     store DSN (overrides CONN_STORE)\n")
		fmt.Fprint(w, "  --config FILE   YAML file of webhook sources (overrides CONN_CONFIG)\n\n")
		printVariables(w)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *addr != "" {
		if _, _, err := net.SplitHostPort(*addr); err != nil {
			return usagef("--addr %q is not a listen address (host:port, e.g. :8080)", *addr)
		}
	}
	getenv := env.getenv
	if *config != "" {
		getenv = func(k string) string {
			if k == "CONN_CONFIG" {
				return *config
			}
			return env.getenv(k)
		}
	}
	cfg, err := notifications.ConfigFromEnv(getenv)
	if err != nil {
		err = flatten(err)
		if *config != "" {
			// The error names where the file came from.
			err = &reworded{strings.ReplaceAll(err.Error(), "CONN_CONFIG: ", "--config: "), err}
		}
		return fmt.Errorf("serve: invalid configuration: %w", err)
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *store != "" {
		cfg.Store = *store
	}
	log := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// Errors name where the failing value came from (docs/environment.md: an
	// invalid value stops start-up with a message naming the variable).
	storeSrc, addrSrc := "CONN_STORE", "CONN_ADDR"
	if *store != "" {
		storeSrc = "--store"
	}
	if *addr != "" {
		addrSrc = "--addr"
	}
	st, err := sqlstore.Open(ctx, cfg.Store, sqlstore.WithLogger(log),
		sqlstore.WithLockLease(crashLease), sqlstore.WithClaimLease(crashLease))
	if err != nil {
		return fmt.Errorf("serve: opening the store (%s): %w", storeSrc, err)
	}
	svc, err := notifications.New(cfg, st, notifications.WithLogger(log))
	if err != nil {
		st.Close()
		return fmt.Errorf("serve: invalid configuration: %w", flatten(err))
	}
	if err := svc.Start(ctx); err != nil {
		st.Close()
		return fmt.Errorf("serve: %s: %w", addrSrc, err)
	}
	// Tests and scripts read the bound address (useful with --addr 127.0.0.1:0).
	fmt.Fprintf(env.stderr, "sluice serve: listening on %s\n", svc.Addr())
	<-ctx.Done()
	log.Info("shutting down: finishing in-flight requests and the running batch")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	stopErr := svc.Stop(sctx)
	closeErr := st.Close()
	if stopErr != nil {
		return fmt.Errorf("serve: graceful shutdown: %w", stopErr)
	}
	if closeErr != nil {
		return fmt.Errorf("serve: closing the store: %w", closeErr)
	}
	return nil
}

// printVariables lists every environment variable with its default.
func printVariables(w io.Writer) {
	fmt.Fprint(w, "Environment (value shown is the default):\n")
	for _, v := range notifications.Variables {
		def := v.Default
		if def == "" {
			def = "(unset)"
		}
		fmt.Fprintf(w, "  %-50s %-34s %s\n", v.Name, def, v.Meaning)
	}
}

// flatten puts joined configuration errors on one line for the `sluice: `
// error line.
func flatten(err error) error {
	return &reworded{strings.ReplaceAll(err.Error(), "\n", "; "), err}
}

// reworded is err told in other words; errors.Is and As still see err.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }

func (e *reworded) Unwrap() error { return e.err }
