package notifications

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/sluicedata/sluice/internal/duration"
	"github.com/sluicedata/sluice/notifications/internal/httpapi"
	"github.com/sluicedata/sluice/notifications/source"
)

// Config is the sidecar's configuration (see docs/environment.md). Build it
// with DefaultConfig or ConfigFromEnv; New validates it.
type Config struct {
	// Addr is the HTTP listen address (CONN_ADDR). Defaults to
	// "127.0.0.1:8080" (loopback: put a proxy in front to expose it).
	Addr string
	// Store is the store DSN (CONN_STORE): sqlite:<path> or postgres://….
	// Defaults to "sqlite:.sluice/notifications.db".
	Store string
	// MaxBodyBytes bounds an intake body (CONN_MAX_BODY_BYTES); larger ones
	// get 413. Defaults to 1048576.
	MaxBodyBytes int
	// MarketplaceURL receives every processed notification
	// (CONN_MARKETPLACE_URL). Without it processing fails (and retries).
	// Defaults to "".
	MarketplaceURL string
	// ProviderAPIURL is where a record without a stored body fetches it
	// (PROVIDER_API_URL). Defaults to "".
	ProviderAPIURL string
	// DownstreamTimeout bounds each marketplace or provider request
	// (CONN_DOWNSTREAM_TIMEOUT). Defaults to 10s.
	DownstreamTimeout time.Duration
	// Drain makes a processing run take further batches until none is
	// eligible (CONN_PROCESSING_DRAIN). Defaults to false.
	Drain bool
	// Concurrency is how many objectTokens are processed in parallel within
	// a batch (CONN_PROCESSING_CONCURRENCY). Defaults to 1.
	Concurrency int
	// ManagementAPI enables /management/** (CONN_TOGGLE_FEATURES_MANAGEMENT_API).
	// Defaults to false.
	ManagementAPI bool
	// APIToken, when set, is the bearer token every endpoint but intake and
	// /health requires (CONN_API_TOKEN). Defaults to "".
	APIToken string

	// MaxAttempts counts processing attempts before FAILED
	// (PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES, minimum 1). Defaults to 5.
	MaxAttempts int
	// InitialRetryDelay is the first back-off delay
	// (PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY). Defaults to 1m.
	InitialRetryDelay time.Duration
	// BackoffMultiplier grows the delay per failed attempt
	// (PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER, ≥ 1). Defaults to 2.0.
	BackoffMultiplier float64
	// ProcessingCron schedules the processing job
	// (PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION); "off" disables it.
	// Defaults to "0/30 * * * * ?".
	ProcessingCron string
	// BatchSize bounds the records one batch claims
	// (PROVIDER_NOTIFICATIONS_BATCH_SIZE). Defaults to 100.
	BatchSize int
	// CleanupCron schedules the cleanup job, in UTC
	// (PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION); "off" disables it.
	// Defaults to "0 0 1 * * ?".
	CleanupCron string
	// RetentionDays keeps terminal records this many days after reception
	// (PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS); 0 deletes every
	// terminal record. Defaults to 90.
	RetentionDays int
	// QuarantineMax bounds the quarantined intake bodies kept; the oldest
	// are dropped beyond it (CONN_QUARANTINE_MAX). Defaults to 10000.
	QuarantineMax int
	// QuarantineRetentionDays keeps quarantined bodies this many days; the
	// cleanup job removes older ones (CONN_QUARANTINE_RETENTION_DAYS).
	// Defaults to 7.
	QuarantineRetentionDays int
	// LedgerRetentionDays keeps discard ledger entries this many days; the
	// cleanup job removes older ones (CONN_LEDGER_RETENTION_DAYS). Defaults
	// to 7.
	LedgerRetentionDays int

	// WebhookSecrets, when set, make intake require a signature
	// (CONN_WEBHOOK_SECRET, comma list: any of them verifies, to rotate).
	// Defaults to none (unsigned intake).
	WebhookSecrets []string
	// WebhookTolerance is how far X-Sluice-Timestamp may be from now
	// (CONN_WEBHOOK_TOLERANCE). Defaults to 5m.
	WebhookTolerance time.Duration
	// FailFast4xx makes a 4xx answer other than 408, 409, 425 and 429 FAILED
	// at once (CONN_FAIL_FAST_4XX). Defaults to false.
	FailFast4xx bool
	// RetryJitter spreads each back-off delay by ± that fraction
	// (CONN_RETRY_JITTER, 0–1). Defaults to 0.
	RetryJitter float64
	// BreakerFailures consecutive failures open a downstream host's circuit
	// (CONN_BREAKER_FAILURES); 0 turns the breaker off. Defaults to 0.
	BreakerFailures int
	// BreakerCooldown is how long an open circuit stays open
	// (CONN_BREAKER_COOLDOWN). Defaults to 30s.
	BreakerCooldown time.Duration

	// Mail configures the FAILED alert (CONN_MAIL_*).
	Mail MailConfig

	// ConfigFile is the sources file (CONN_CONFIG; `sluice serve --config`
	// wins): ConfigFromEnv reads it into Sources. Defaults to "" (the HMC
	// source only).
	ConfigFile string
	// Sources are the webhook sources besides the HMC one
	// (docs/sidecar.md#sources), each at its own path with its own scheme,
	// mapping and delivery. Build them with LoadSources or
	// source.Config.Build. Defaults to none.
	Sources []*source.Source
}

// Variable documents one environment variable of the sidecar.
type Variable struct {
	Name    string
	Default string
	Meaning string
}

// Variables lists every environment variable the sidecar reads, with its
// default and meaning (`sluice serve --help` prints it).
var Variables = []Variable{
	{"CONN_ADDR", "127.0.0.1:8080", "HTTP listen address (flag --addr wins); :8080 listens on every interface"},
	{"CONN_CONFIG", "", "YAML file of webhook sources (flag --config wins); unset = the HMC source only"},
	{"CONN_STORE", "sqlite:.sluice/notifications.db", "store DSN: sqlite:<path> or postgres://… (flag --store wins)"},
	{"CONN_MAX_BODY_BYTES", "1048576", "largest accepted webhook body in bytes; larger ones get 413"},
	{"CONN_MARKETPLACE_URL", "", "URL every processed notification is POSTed to; unset = processing fails"},
	{"PROVIDER_API_URL", "", "provider API base; a record without a stored body GETs {url}/webhook-notifications/{token}"},
	{"CONN_DOWNSTREAM_TIMEOUT", "10s", "timeout of each marketplace/provider request (10s or PT10S)"},
	{"CONN_PROCESSING_DRAIN", "false", "true: a processing run takes batches until none is eligible"},
	{"CONN_PROCESSING_CONCURRENCY", "1", "objectTokens processed in parallel (one objectToken stays sequential)"},
	{"CONN_TOGGLE_FEATURES_MANAGEMENT_API", "false", "true enables /management/**; else it answers 403"},
	{"CONN_API_TOKEN", "", "bearer token required by every endpoint but intake and /health"},
	{"CONN_WEBHOOK_SECRET", "", "comma list of HMAC secrets: intake then requires X-Sluice-Timestamp and X-Sluice-Signature (401 otherwise)"},
	{"CONN_WEBHOOK_TOLERANCE", "5m", "how far X-Sluice-Timestamp may be from now"},
	{"CONN_FAIL_FAST_4XX", "false", "true: a 4xx answer other than 408/409/425/429 makes the record FAILED at once"},
	{"CONN_RETRY_JITTER", "0", "spread each back-off delay by ± this fraction (0–1)"},
	{"CONN_BREAKER_FAILURES", "0", "consecutive failures that open a downstream host's circuit breaker; 0 = off"},
	{"CONN_BREAKER_COOLDOWN", "30s", "how long an open circuit breaker keeps records waiting"},
	{"CONN_MAIL_SMTP_HOST", "", "SMTP server for FAILED alerts; unset = alerts are only logged"},
	{"CONN_MAIL_SMTP_PORT", "25", "SMTP port"},
	{"CONN_MAIL_SMTP_USERNAME", "", "SMTP user (AUTH PLAIN when set)"},
	{"CONN_MAIL_SMTP_PASSWORD", "", "SMTP password"},
	{"CONN_MAIL_SMTP_STARTTLS", "auto", "true (required) | false (never) | auto (when offered)"},
	{"CONN_MAIL_FROM", "sluice@localhost", "sender address of alerts"},
	{"CONN_MAIL_RECIPIENT", "", "alert recipients, comma-separated"},
	{"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES", "5", "processing attempts before a record is FAILED (minimum 1)"},
	{"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", "PT1M", "first retry delay (ISO-8601 or Go duration)"},
	{"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", "2.0", "delay = initial × multiplier^(retryCounter−1)"},
	{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "0/30 * * * * ?", "processing schedule (6 fields, seconds first; off disables)"},
	{"PROVIDER_NOTIFICATIONS_BATCH_SIZE", "100", "records claimed per batch"},
	{"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION", "0 0 1 * * ?", "cleanup schedule in UTC (off disables)"},
	{"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS", "90", "days terminal records are kept; 0 = delete all terminal"},
	{"CONN_QUARANTINE_MAX", "10000", "intake bodies refused with 400 kept for inspection; the oldest are dropped beyond it"},
	{"CONN_QUARANTINE_RETENTION_DAYS", "7", "days quarantined bodies are kept (cleanup job)"},
	{"CONN_LEDGER_RETENTION_DAYS", "7", "days discard ledger entries (duplicate/obsolete deliveries) are kept (cleanup job)"},
}

// DefaultConfig returns the configuration with every default applied.
func DefaultConfig() Config {
	return Config{
		Addr:              "127.0.0.1:8080",
		Store:             "sqlite:.sluice/notifications.db",
		MaxBodyBytes:      1 << 20,
		DownstreamTimeout: 10 * time.Second,
		Concurrency:       1,
		MaxAttempts:       5,
		InitialRetryDelay: time.Minute,
		BackoffMultiplier: 2.0,
		ProcessingCron:    "0/30 * * * * ?",
		BatchSize:         100,
		CleanupCron:       "0 0 1 * * ?",
		RetentionDays:     90,
		WebhookTolerance:  5 * time.Minute,
		BreakerCooldown:   30 * time.Second,

		QuarantineMax:           10000,
		QuarantineRetentionDays: 7,
		LedgerRetentionDays:     7,
		Mail:                    MailConfig{Port: 25, StartTLS: "auto", From: "sluice@localhost"},
	}
}

// ConfigError names the variable (or Config field) whose value is invalid.
// The value itself is only quoted for variables that are not secrets.
type ConfigError struct {
	Variable string
	Err      error
}

func (e *ConfigError) Error() string { return e.Variable + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ConfigFromEnv reads every variable of Variables through getenv (os.Getenv
// in production), on top of DefaultConfig, and validates the result. Unset
// or empty variables keep their default. The error names the variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var errs []error
	fail := func(name string, err error) { errs = append(errs, &ConfigError{Variable: name, Err: err}) }
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	integer := func(name string, dst *int) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				fail(name, fmt.Errorf("%q is not an integer", v))
				return
			}
			*dst = n
		}
	}
	boolean := func(name string, dst *bool) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				fail(name, fmt.Errorf("%q is not a boolean (true or false)", v))
				return
			}
			*dst = b
		}
	}
	duration := func(name string, dst *time.Duration) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			d, err := duration.Parse(v)
			if err != nil {
				fail(name, err)
				return
			}
			*dst = d
		}
	}

	str("CONN_ADDR", &c.Addr)
	str("CONN_STORE", &c.Store)
	integer("CONN_MAX_BODY_BYTES", &c.MaxBodyBytes)
	str("CONN_MARKETPLACE_URL", &c.MarketplaceURL)
	str("PROVIDER_API_URL", &c.ProviderAPIURL)
	duration("CONN_DOWNSTREAM_TIMEOUT", &c.DownstreamTimeout)
	boolean("CONN_PROCESSING_DRAIN", &c.Drain)
	integer("CONN_PROCESSING_CONCURRENCY", &c.Concurrency)
	boolean("CONN_TOGGLE_FEATURES_MANAGEMENT_API", &c.ManagementAPI)
	// The token is taken verbatim: spaces may be part of a secret.
	c.APIToken = getenv("CONN_API_TOKEN")
	str("CONN_MAIL_SMTP_HOST", &c.Mail.Host)
	integer("CONN_MAIL_SMTP_PORT", &c.Mail.Port)
	str("CONN_MAIL_SMTP_USERNAME", &c.Mail.Username)
	c.Mail.Password = getenv("CONN_MAIL_SMTP_PASSWORD")
	str("CONN_MAIL_SMTP_STARTTLS", &c.Mail.StartTLS)
	c.Mail.StartTLS = strings.ToLower(c.Mail.StartTLS)
	str("CONN_MAIL_FROM", &c.Mail.From)
	if v := getenv("CONN_MAIL_RECIPIENT"); strings.TrimSpace(v) != "" {
		c.Mail.Recipients = splitList(v)
	}
	// Secrets are taken verbatim but for the separating commas.
	if v := getenv("CONN_WEBHOOK_SECRET"); strings.TrimSpace(v) != "" {
		c.WebhookSecrets = splitList(v)
	}
	duration("CONN_WEBHOOK_TOLERANCE", &c.WebhookTolerance)
	boolean("CONN_FAIL_FAST_4XX", &c.FailFast4xx)
	if v := strings.TrimSpace(getenv("CONN_RETRY_JITTER")); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			fail("CONN_RETRY_JITTER", fmt.Errorf("%q is not a number", v))
		} else {
			c.RetryJitter = f
		}
	}
	integer("CONN_BREAKER_FAILURES", &c.BreakerFailures)
	duration("CONN_BREAKER_COOLDOWN", &c.BreakerCooldown)
	integer("PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES", &c.MaxAttempts)
	duration("PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", &c.InitialRetryDelay)
	if v := strings.TrimSpace(getenv("PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER")); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			fail("PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", fmt.Errorf("%q is not a number", v))
		} else {
			c.BackoffMultiplier = f
		}
	}
	str("PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", &c.ProcessingCron)
	integer("PROVIDER_NOTIFICATIONS_BATCH_SIZE", &c.BatchSize)
	str("PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION", &c.CleanupCron)
	integer("PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS", &c.RetentionDays)
	integer("CONN_QUARANTINE_MAX", &c.QuarantineMax)
	integer("CONN_QUARANTINE_RETENTION_DAYS", &c.QuarantineRetentionDays)
	integer("CONN_LEDGER_RETENTION_DAYS", &c.LedgerRetentionDays)
	if v := strings.TrimSpace(getenv("CONN_CONFIG")); v != "" {
		c.ConfigFile = v
		srcs, err := LoadSources(v, getenv)
		if err != nil {
			fail("CONN_CONFIG", err)
		}
		c.Sources = srcs
	}

	// Report every bad variable at once; one that failed to parse kept its
	// default, so validate does not repeat it.
	return c, errors.Join(append(errs, c.validate())...)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// LoadSources reads a sources file (docs/sidecar.md#config-file); getenv
// resolves secrets written ${env:NAME}. The error names the file, the line
// and what is wrong, never a secret.
func LoadSources(path string, getenv func(string) string) ([]*source.Source, error) {
	return source.LoadFile(path, getenv)
}

// validate checks every field and names the variable of each bad one.
func (c *Config) validate() error {
	var errs []error
	fail := func(name, format string, args ...any) {
		errs = append(errs, &ConfigError{Variable: name, Err: fmt.Errorf(format, args...)})
	}
	if strings.TrimSpace(c.Addr) == "" {
		fail("CONN_ADDR", "must not be empty")
	} else if err := checkListenAddr(c.Addr); err != nil {
		fail("CONN_ADDR", "%q is not a listen address (host:port, e.g. :8080): %w", c.Addr, err)
	}
	if !strings.HasPrefix(c.Store, "sqlite:") && !strings.HasPrefix(c.Store, "postgres://") && !strings.HasPrefix(c.Store, "postgresql://") {
		// The DSN may carry a password: never echo it.
		fail("CONN_STORE", "must start with sqlite: or postgres://")
	}
	if c.MaxBodyBytes < 1 {
		fail("CONN_MAX_BODY_BYTES", "must be at least 1, got %d", c.MaxBodyBytes)
	}
	if c.MarketplaceURL != "" {
		if err := source.CheckHTTPURL(c.MarketplaceURL); err != nil {
			fail("CONN_MARKETPLACE_URL", "%w", err)
		}
	}
	if c.ProviderAPIURL != "" {
		if err := source.CheckHTTPURL(c.ProviderAPIURL); err != nil {
			fail("PROVIDER_API_URL", "%w", err)
		}
	}
	if c.DownstreamTimeout <= 0 {
		fail("CONN_DOWNSTREAM_TIMEOUT", "must be positive")
	}
	if c.Concurrency < 1 || c.Concurrency > 1024 {
		fail("CONN_PROCESSING_CONCURRENCY", "must be between 1 and 1024, got %d", c.Concurrency)
	}
	if c.MaxAttempts < 1 {
		fail("PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES", "must be at least 1, got %d", c.MaxAttempts)
	}
	if c.InitialRetryDelay < 0 {
		fail("PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY", "must not be negative")
	}
	if !(c.BackoffMultiplier >= 1) || c.BackoffMultiplier > 1000 {
		fail("PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER", "must be between 1 and 1000, got %v", c.BackoffMultiplier)
	}
	if _, err := ParseCron(c.ProcessingCron); err != nil {
		fail("PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION", "%w", err)
	}
	if c.BatchSize < 1 || c.BatchSize > 100000 {
		fail("PROVIDER_NOTIFICATIONS_BATCH_SIZE", "must be between 1 and 100000, got %d", c.BatchSize)
	}
	if _, err := ParseCron(c.CleanupCron); err != nil {
		fail("PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION", "%w", err)
	}
	if c.RetentionDays < 0 || c.RetentionDays > 365000 {
		fail("PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS", "must be between 0 and 365000, got %d", c.RetentionDays)
	}
	if c.WebhookTolerance <= 0 {
		fail("CONN_WEBHOOK_TOLERANCE", "must be positive")
	}
	if !(c.RetryJitter >= 0 && c.RetryJitter <= 1) {
		fail("CONN_RETRY_JITTER", "must be between 0 and 1, got %v", c.RetryJitter)
	}
	if c.BreakerFailures < 0 || c.BreakerFailures > 1000000 {
		fail("CONN_BREAKER_FAILURES", "must be between 0 and 1000000, got %d", c.BreakerFailures)
	}
	if c.BreakerCooldown <= 0 {
		fail("CONN_BREAKER_COOLDOWN", "must be positive")
	}
	for _, sec := range c.WebhookSecrets {
		if len(sec) < 16 {
			// The value is a secret: not quoted.
			fail("CONN_WEBHOOK_SECRET", "each secret must be at least 16 bytes long")
			break
		}
	}
	if c.QuarantineMax < 1 || c.QuarantineMax > 10000000 {
		fail("CONN_QUARANTINE_MAX", "must be between 1 and 10000000, got %d", c.QuarantineMax)
	}
	if c.QuarantineRetentionDays < 0 || c.QuarantineRetentionDays > 365000 {
		fail("CONN_QUARANTINE_RETENTION_DAYS", "must be between 0 and 365000, got %d", c.QuarantineRetentionDays)
	}
	if c.LedgerRetentionDays < 0 || c.LedgerRetentionDays > 365000 {
		fail("CONN_LEDGER_RETENTION_DAYS", "must be between 0 and 365000, got %d", c.LedgerRetentionDays)
	}
	if c.Mail.Port < 1 || c.Mail.Port > 65535 {
		fail("CONN_MAIL_SMTP_PORT", "must be between 1 and 65535, got %d", c.Mail.Port)
	}
	switch c.Mail.StartTLS {
	case "true", "false", "auto":
	default:
		fail("CONN_MAIL_SMTP_STARTTLS", "%q is not true, false or auto", c.Mail.StartTLS)
	}
	if c.APIToken != "" && (strings.TrimSpace(c.APIToken) != c.APIToken || strings.ContainsAny(c.APIToken, "\r\n")) {
		// A bearer token is compared trimmed: this one could never match.
		// The value is a secret: not quoted.
		fail("CONN_API_TOKEN", "must not start or end with whitespace or hold a line break")
	}
	if c.Mail.Host != "" && strings.ContainsAny(c.Mail.Host, " \t\r\n/@") {
		fail("CONN_MAIL_SMTP_HOST", "%q is not a host name or address", c.Mail.Host)
	}
	if c.Mail.From != "" || c.Mail.Host != "" {
		if strings.ContainsAny(c.Mail.From, "\r\n<> ") || !strings.Contains(c.Mail.From, "@") {
			fail("CONN_MAIL_FROM", "%q is not a plain e-mail address", c.Mail.From)
		}
	}
	if c.Mail.Host != "" {
		if len(c.Mail.Recipients) == 0 {
			fail("CONN_MAIL_RECIPIENT", "must list at least one address when CONN_MAIL_SMTP_HOST is set")
		}
	}
	for _, r := range c.Mail.Recipients {
		if strings.ContainsAny(r, "\r\n<> ") || !strings.Contains(r, "@") {
			fail("CONN_MAIL_RECIPIENT", "%q is not an e-mail address", r)
		}
	}
	if len(c.Sources) > 0 {
		// Names and paths unique (the HMC source's secrets are checked above).
		hmc, _ := source.HMC(nil, 0)
		if _, err := source.NewSet(hmc, c.Sources...); err != nil {
			fail("CONN_CONFIG", "%w", err)
		}
	}
	return errors.Join(errs...)
}

// sourceSet is the HMC source and c.Sources, names and paths unique.
func (c *Config) sourceSet() (*source.Set, error) {
	hmc, err := source.HMC(c.WebhookSecrets, c.WebhookTolerance)
	if err != nil {
		return nil, err
	}
	return source.NewSet(hmc, c.Sources...)
}

// checkListenAddr catches a malformed address at start-up, where the error
// can name the variable, rather than at Listen.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port")
	}
	if port == "" {
		return errors.New("no port")
	}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 0 || n > 65535 {
			return fmt.Errorf("port %d is out of range 0-65535", n)
		}
		return nil
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("unknown port %q", port)
	}
	return nil
}

// jobsConfig is the part of c the jobs read.
func (c *Config) jobsConfig() runnerConfig {
	return runnerConfig{
		BatchSize: c.BatchSize, Drain: c.Drain, Concurrency: c.Concurrency, MaxAttempts: c.MaxAttempts,
		InitialRetryDelay: c.InitialRetryDelay, BackoffMultiplier: c.BackoffMultiplier,
		RetentionDays: c.RetentionDays, DownstreamTimeout: c.DownstreamTimeout,
		ProviderAPIURL: c.ProviderAPIURL, Mail: c.Mail,
		FailFast4xx: c.FailFast4xx, RetryJitter: c.RetryJitter,
		BreakerFailures: c.BreakerFailures, BreakerCooldown: c.BreakerCooldown,
		QuarantineRetentionDays: c.QuarantineRetentionDays, LedgerRetentionDays: c.LedgerRetentionDays,
		Secrets: c.secrets(),
	}
}

// secrets are the configuration values masked in the errors attempts keep:
// secret ones by their names, and URLs (their credentials and secret query
// values).
func (c *Config) secrets() map[string]string {
	m := map[string]string{
		"conn.marketplace.url": c.MarketplaceURL, "provider.api.url": c.ProviderAPIURL,
		"conn.api.token": c.APIToken, "conn.mail.smtp.password": c.Mail.Password,
	}
	for i, s := range c.WebhookSecrets {
		m[fmt.Sprintf("conn.webhook.secret.%d", i)] = s
	}
	for _, src := range c.Sources {
		m["source."+src.Name+".marketplace.url"] = src.Marketplace
	}
	return m
}

// apiConfig is the part of c the HTTP API reads.
func (c *Config) apiConfig() httpapi.Config {
	return httpapi.Config{MaxBodyBytes: c.MaxBodyBytes, APIToken: c.APIToken, ManagementAPI: c.ManagementAPI,
		QuarantineMax: c.QuarantineMax}
}

// Off is the cron value that disables a schedule.
const Off = "off"

var cronParser = cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseCron parses a Quartz-style expression: six fields, seconds first,
// `?` allowed in the day fields, day-of-week 1–7 = SUN–SAT or names. `L`,
// `W`, `#` and a year field are rejected with a message saying so. "off"
// gives a nil schedule (disabled).
func ParseCron(expr string) (cron.Schedule, error) {
	e := strings.TrimSpace(expr)
	if strings.EqualFold(e, Off) {
		return nil, nil
	}
	fields := strings.Fields(e)
	switch {
	case len(fields) == 7:
		return nil, fmt.Errorf("cron %q has a year field, which is not supported (use six fields: sec min hour day month weekday)", expr)
	case len(fields) != 6:
		return nil, fmt.Errorf("cron %q has %d fields; want six: sec min hour day month weekday (or off)", expr, len(fields))
	}
	for i, f := range fields {
		if strings.HasPrefix(f, "@") {
			return nil, fmt.Errorf("cron %q: descriptor %q is not supported", expr, f)
		}
		for _, ch := range []string{"L", "W", "#"} {
			// Names of months and days (JUL, WED) contain L and W; only a bare
			// special character counts.
			if containsSpecial(strings.ToUpper(f), ch) {
				return nil, fmt.Errorf("cron %q: %q in field %d is not supported", expr, ch, i+1)
			}
		}
		for _, part := range strings.Split(f, ",") {
			if part == "" {
				return nil, fmt.Errorf("cron %q: field %d %q has an empty list element", expr, i+1, f)
			}
		}
		if f == "?" && i != 3 && i != 5 {
			return nil, fmt.Errorf("cron %q: ? is only allowed in the day-of-month and day-of-week fields", expr)
		}
	}
	if fields[3] == "?" {
		fields[3] = "*"
	}
	dow, err := quartzWeekdays(fields[5])
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", expr, err)
	}
	fields[5] = dow
	s, err := cronParser.Parse(strings.Join(fields, " "))
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", expr, err)
	}
	// robfig gives up after five years without a match (say 30 February):
	// such a schedule would silently never run.
	if s.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("cron %q never fires", expr)
	}
	return s, nil
}

// containsSpecial reports whether ch occurs in field other than inside a
// three-letter month or day name.
func containsSpecial(field, ch string) bool {
	names := []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
		"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
	for _, n := range names {
		field = strings.ReplaceAll(field, n, "")
	}
	return strings.Contains(field, ch)
}

// quartzWeekdays turns Quartz day-of-week numbers (1 = SUN … 7 = SAT) into
// robfig's (0 = SUN … 6 = SAT); names and * pass through.
func quartzWeekdays(f string) (string, error) {
	if f == "?" || f == "*" {
		return "*", nil
	}
	parts := strings.Split(f, ",")
	for i, p := range parts {
		rng, step, hasStep := strings.Cut(p, "/")
		ends := strings.Split(rng, "-")
		if len(ends) > 2 {
			return "", fmt.Errorf("day-of-week %q is not a range", p)
		}
		for j, e := range ends {
			if e == "*" || e == "?" {
				ends[j] = "*"
				continue
			}
			n, err := strconv.Atoi(e)
			if err != nil {
				continue // a name (MON); robfig checks it
			}
			if n < 1 || n > 7 {
				return "", fmt.Errorf("day-of-week %d is out of range 1-7 (1 = SUN)", n)
			}
			ends[j] = strconv.Itoa(n - 1)
		}
		parts[i] = strings.Join(ends, "-")
		if hasStep {
			parts[i] += "/" + step
		}
	}
	return strings.Join(parts, ","), nil
}
