package notifications_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/source"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnvDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := notifications.ConfigFromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, notifications.DefaultConfig(), cfg)
	require.Equal(t, "127.0.0.1:8080", cfg.Addr) // loopback by default (docs/environment.md)
	require.Equal(t, "sqlite:.sluice/notifications.db", cfg.Store)
	require.Equal(t, 1<<20, cfg.MaxBodyBytes)
	require.Equal(t, 10*time.Second, cfg.DownstreamTimeout)
	require.Equal(t, 5, cfg.MaxAttempts)
	require.Equal(t, time.Minute, cfg.InitialRetryDelay)
	require.Equal(t, 2.0, cfg.BackoffMultiplier)
	require.Equal(t, "0/30 * * * * ?", cfg.ProcessingCron)
	require.Equal(t, 100, cfg.BatchSize)
	require.Equal(t, "0 0 1 * * ?", cfg.CleanupCron)
	require.Equal(t, 90, cfg.RetentionDays)
	require.Equal(t, 25, cfg.Mail.Port)
	require.Equal(t, "auto", cfg.Mail.StartTLS)
	require.Equal(t, 1, cfg.Concurrency)
	require.False(t, cfg.Drain)
	require.False(t, cfg.ManagementAPI)

	// Every variable in the table has a default that parses to the default config.
	defaults := map[string]string{}
	for _, v := range notifications.Variables {
		defaults[v.Name] = v.Default
	}
	fromTable, err := notifications.ConfigFromEnv(env(defaults))
	require.NoError(t, err)
	require.Equal(t, cfg, fromTable)
}

func TestConfigFromEnvValues(t *testing.T) {
	t.Parallel()
	cfg, err := notifications.ConfigFromEnv(env(map[string]string{
		"CONN_ADDR":                                         "127.0.0.1:9000",
		"CONN_STORE":                                        "postgres://u:p@db/x",
		"CONN_MAX_BODY_BYTES":                               "2048",
		"CONN_MARKETPLACE_URL":                              "http://127.0.0.1:1/m",
		"PROVIDER_API_URL":                                  "https://provider.example/rest/v4",
		"CONN_DOWNSTREAM_TIMEOUT":                           "PT2.5S",
		"CONN_PROCESSING_DRAIN":                             "true",
		"CONN_PROCESSING_CONCURRENCY":                       "8",
		"CONN_TOGGLE_FEATURES_MANAGEMENT_API":               "TRUE",
		"CONN_API_TOKEN":                                    "s3cret",
		"CONN_MAIL_SMTP_HOST":                               "mail.example",
		"CONN_MAIL_SMTP_PORT":                               "587",
		"CONN_MAIL_SMTP_USERNAME":                           "bot",
		"CONN_MAIL_SMTP_PASSWORD":                           "pw",
		"CONN_MAIL_SMTP_STARTTLS":                           "True",
		"CONN_MAIL_FROM":                                    "conn@example.com",
		"CONN_MAIL_RECIPIENT":                               "a@example.com, b@example.com,",
		"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES":       "3",
		"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY":         "90s",
		"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER":    "1.5",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off",
		"PROVIDER_NOTIFICATIONS_BATCH_SIZE":                 "500",
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION":    "0 15 2 ? * MON-FRI",
		"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS":     "0",
	}))
	require.NoError(t, err)
	require.Equal(t, 2500*time.Millisecond, cfg.DownstreamTimeout)
	require.Equal(t, 90*time.Second, cfg.InitialRetryDelay)
	require.Equal(t, []string{"a@example.com", "b@example.com"}, cfg.Mail.Recipients)
	require.Equal(t, "true", cfg.Mail.StartTLS)
	require.True(t, cfg.Drain)
	require.True(t, cfg.ManagementAPI)
	require.Equal(t, 8, cfg.Concurrency)
	require.Equal(t, 0, cfg.RetentionDays)
	require.Equal(t, "s3cret", cfg.APIToken)
}

func TestConfigFromEnvErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, value, want string }{
		{"CONN_MAX_BODY_BYTES", "1MB", "not an integer"},
		{"CONN_MAX_BODY_BYTES", "0", "at least 1"},
		{"CONN_STORE", "mysql://u:hunter2@x", "sqlite: or postgres://"},
		{"CONN_MARKETPLACE_URL", "ftp://x", "http(s)"},
		{"PROVIDER_API_URL", "not a url", "http(s)"},
		{"CONN_DOWNSTREAM_TIMEOUT", "10 parsecs", "not a duration"},
		{"CONN_DOWNSTREAM_TIMEOUT", "0s", "positive"},
		{"CONN_PROCESSING_DRAIN", "yes please", "not a boolean"},
		{"CONN_PROCESSING_CONCURRENCY", "0", "between 1 and 1024"},
		{"CONN_TOGGLE_FEATURES_MANAGEMENT_API", "on-ish", "not a boolean"},
		{"CONN_MAIL_SMTP_PORT", "70000", "between 1 and 65535"},
		{"CONN_MAIL_SMTP_STARTTLS", "maybe", "true, false or auto"},
		{"CONN_MAIL_RECIPIENT", "not-an-address", "not an e-mail address"},
		{"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES", "0", "at least 1"},
		{"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", "P1X", "not a duration"},
		{"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", "two", "not a number"},
		{"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", "0.5", "between 1 and 1000"},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 L * ?", "fields"},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 0 L * ?", `"L"`},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 0 15W * ?", `"W"`},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 0 ? * 6#3", `"#"`},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 0 * * ? 2025", "year field"},
		{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 99 * * * ?", "cron"},
		{"PROVIDER_NOTIFICATIONS_BATCH_SIZE", "-1", "between 1"},
		{"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION", "@daily", "six"},
		{"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS", "-3", "between 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			_, err := notifications.ConfigFromEnv(env(map[string]string{tt.name: tt.value}))
			require.Error(t, err)
			var ce *notifications.ConfigError
			require.True(t, errors.As(err, &ce))
			require.Equal(t, tt.name, ce.Variable)
			require.True(t, strings.HasPrefix(err.Error(), tt.name+": "), err.Error())
			require.Contains(t, err.Error(), tt.want)
			require.NotContains(t, err.Error(), "hunter2", "secrets never reach errors")
		})
	}
}

func TestConfigMailNeedsRecipients(t *testing.T) {
	t.Parallel()
	_, err := notifications.ConfigFromEnv(env(map[string]string{"CONN_MAIL_SMTP_HOST": "127.0.0.1"}))
	require.ErrorContains(t, err, "CONN_MAIL_RECIPIENT")
}

func TestParseCron(t *testing.T) {
	t.Parallel()
	from := time.Date(2024, 5, 1, 10, 0, 10, 0, time.UTC) // a Wednesday
	tests := []struct {
		expr string
		next time.Time
	}{
		{"0/30 * * * * ?", time.Date(2024, 5, 1, 10, 0, 30, 0, time.UTC)},
		{"0 0 1 * * ?", time.Date(2024, 5, 2, 1, 0, 0, 0, time.UTC)},
		{"0 0 12 ? * 2", time.Date(2024, 5, 6, 12, 0, 0, 0, time.UTC)},   // Quartz 2 = Monday
		{"0 0 12 ? * 1", time.Date(2024, 5, 5, 12, 0, 0, 0, time.UTC)},   // Quartz 1 = Sunday
		{"0 0 12 ? * 7", time.Date(2024, 5, 4, 12, 0, 0, 0, time.UTC)},   // Quartz 7 = Saturday
		{"0 0 12 ? * MON", time.Date(2024, 5, 6, 12, 0, 0, 0, time.UTC)}, // names
		{"0 0 12 ? * 2-3", time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}, // MON-TUE… Wednesday is 4
		{"15 10 * * JUL ?", time.Date(2024, 7, 1, 0, 10, 15, 0, time.UTC)},
	}
	for _, tt := range tests {
		s, err := notifications.ParseCron(tt.expr)
		require.NoError(t, err, tt.expr)
		if tt.expr == "0 0 12 ? * 2-3" {
			// Monday–Tuesday: next is Monday 6 May.
			require.Equal(t, time.Date(2024, 5, 6, 12, 0, 0, 0, time.UTC), s.Next(from), tt.expr)
			continue
		}
		require.Equal(t, tt.next, s.Next(from), tt.expr)
	}
	s, err := notifications.ParseCron(" OFF ")
	require.NoError(t, err)
	require.Nil(t, s)
	_, err = notifications.ParseCron("0 0 12 ? * 0")
	require.ErrorContains(t, err, "out of range 1-7")
	_, err = notifications.ParseCron("? 0 12 * * *")
	require.ErrorContains(t, err, "only allowed")
	_, err = notifications.ParseCron("0 0 0 30 2 ?")
	require.ErrorContains(t, err, "never fires")
	_, err = notifications.ParseCron("0 , 0 1 1 1")
	require.ErrorContains(t, err, "empty list element")
}

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"0/30 * * * * ?", "0 0 1 * * ?", "off", "0 0 0 L * ?", "0 0 0 ? * 6#3",
		"* * * * * * *", "0 0 12 ? * MON-FRI", "0 0 12 ? * 1-7/2", "0 */5 * * JUL-AUG ?", ""} {
		f.Add(s)
	}
	from := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := notifications.ParseCron(expr)
		if err != nil || s == nil {
			return
		}
		require.False(t, s.Next(from).Before(from))
	})
}

func FuzzConfigFromEnv(f *testing.F) {
	f.Add("CONN_DOWNSTREAM_TIMEOUT", "PT10S")
	f.Add("PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", "1h30m")
	f.Add("PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", "P1DT2H")
	f.Add("CONN_MAX_BODY_BYTES", "99999999999999999999")
	f.Add("PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", "NaN")
	f.Add("PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0 0 0 ? * 1#2")
	f.Add("CONN_MAIL_RECIPIENT", "a@b,\r\nBcc: x@y")
	f.Fuzz(func(t *testing.T, name, value string) {
		cfg, err := notifications.ConfigFromEnv(env(map[string]string{name: value}))
		if err != nil {
			var ce *notifications.ConfigError
			require.True(t, errors.As(err, &ce), "every config error names a variable: %v", err)
			return
		}
		// A config that validates can build a service.
		require.GreaterOrEqual(t, cfg.MaxAttempts, 1)
		require.GreaterOrEqual(t, cfg.BackoffMultiplier, 1.0)
		for _, r := range cfg.Mail.Recipients {
			require.NotContains(t, r, "\n")
		}
	})
}

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2024, 5, 1, 8, 0, 0, 123e6, time.UTC)
	for _, s := range []string{"2024-05-01T08:00:00.123Z", "2024-05-01T08:00:00.123", "2024-05-01T10:00:00.123+02:00",
		"2024-05-01T10:00:00.123 02:00", "2024-05-01T10:00:00.123456+0200", "2024-05-01t08:00:00.123z"} {
		got, err := notifications.ParseDateTime(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
	got, err := notifications.ParseDateTime("2024-05-01T08:00")
	require.NoError(t, err)
	require.Equal(t, time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC), got)
	for _, s := range []string{"", "2024-05-01", "yesterday", "2024-13-01T00:00:00", "1714550400"} {
		_, err := notifications.ParseDateTime(s)
		require.Error(t, err, s)
		require.Contains(t, err.Error(), "ISO-8601")
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2024-05-01T08:00:00.123Z", "2024-05-01T10:00:00 02:00", "2024-05-01t08:00", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := notifications.ParseDateTime(s)
		if err != nil {
			return
		}
		require.Equal(t, time.UTC, got.Location())
		require.Equal(t, got, got.Truncate(time.Millisecond))
		// What FormatDate writes parses back to the same instant.
		again, err := notifications.ParseDateTime(notifications.FormatDate(got))
		if got.Year() >= 0 && got.Year() <= 9999 {
			require.NoError(t, err)
			require.Equal(t, got, again)
		}
	})
}

// CONN_CONFIG names the sources file: its sources join the HMC one; a bad
// file is an error naming the variable, the file and the line.
func TestConfigFromEnvSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("sources:\n  - name: gh\n    scheme: github\n    secrets:\n      - ${env:GH_SECRET}\n"), 0o600))
	env := map[string]string{"CONN_CONFIG": good, "GH_SECRET": "s3cr3t-value"}
	cfg, err := notifications.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, good, cfg.ConfigFile)
	require.Len(t, cfg.Sources, 1)
	require.Equal(t, "/webhooks/gh", cfg.Sources[0].Path)
	svc, err := notifications.New(cfg, openStore(t), notifications.WithLogger(quietLogger()))
	require.NoError(t, err)
	var names []string
	for _, s := range svc.Sources() {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"notifications", "gh"}, names)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("sources:\n  - name: gh\n    scheme: github\n    secrets: [x]\n    mappin: {}\n"), 0o600))
	env["CONN_CONFIG"] = bad
	_, err = notifications.ConfigFromEnv(func(k string) string { return env[k] })
	require.ErrorContains(t, err, "CONN_CONFIG: config "+bad+", line 5: source \"gh\": unknown key \"mappin\" (did you mean \"mapping\"?)")
	var ce *notifications.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "CONN_CONFIG", ce.Variable)

	// Two sources on one path, given in Go, are refused by New.
	a, err := source.Config{Name: "a", Scheme: "github", Secrets: []string{"x"}}.Build()
	require.NoError(t, err)
	b, err := source.Config{Name: "b", Path: "/webhooks/a", Scheme: "github", Secrets: []string{"y"}}.Build()
	require.NoError(t, err)
	cfg = testConfig()
	cfg.Sources = []*source.Source{a, b}
	_, err = notifications.New(cfg, openStore(t))
	require.ErrorContains(t, err, `source "b": path /webhooks/a is source "a"'s already`)
}
