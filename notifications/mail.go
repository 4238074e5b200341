package notifications

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"time"
)

// AlertSubject and AlertBody are the FAILED alert's text (see docs/http-api.md#e-mail-alert,
// worded as HMC's).
func AlertSubject(webhookToken string) string {
	return "[CONN] Technical error occurred when processing the notification " + webhookToken
}

// AlertBody is the alert's plain-text body; maxAttempts is the configured
// PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES.
func AlertBody(webhookToken string, maxAttempts int) string {
	return fmt.Sprintf("There was an error processing the notification %s and the operation could not be completed. "+
		"The maximum number of attempts (%d) has been reached, therefore it will not try to re-process the notification anymore.\n"+
		"Please check the logs for further information.", webhookToken, maxAttempts)
}

// MailConfig configures the e-mail alert sent when a record becomes FAILED
// (CONN_MAIL_*; see docs/environment.md#e-mail-alert).
type MailConfig struct {
	// Host is the SMTP server (CONN_MAIL_SMTP_HOST); empty means alerts are
	// only logged. Defaults to "".
	Host string
	// Port is the SMTP port (CONN_MAIL_SMTP_PORT). Defaults to 25.
	Port int
	// Username turns on AUTH PLAIN (CONN_MAIL_SMTP_USERNAME). Defaults to "".
	Username string
	// Password goes with Username (CONN_MAIL_SMTP_PASSWORD). Defaults to "".
	Password string
	// StartTLS is "true" (required), "false" (never) or "auto" (used when
	// offered) (CONN_MAIL_SMTP_STARTTLS). Defaults to "auto".
	StartTLS string
	// From is the sender address (CONN_MAIL_FROM). Defaults to
	// "sluice@localhost".
	From string
	// Recipients receive the alert (CONN_MAIL_RECIPIENT, comma list).
	// Defaults to none.
	Recipients []string
	// TLSConfig is used for STARTTLS; Go embedders set it to trust a private
	// CA. Defaults to the system roots with ServerName = Host.
	TLSConfig *tls.Config
}

// mailer sends alerts over SMTP with net/smtp.
type mailer struct {
	cfg     MailConfig
	timeout time.Duration
	now     func() time.Time
}

// Send delivers one message to every recipient. Header injection is
// impossible: addresses are validated by Config and the subject's token is
// stripped of line breaks.
func (m *mailer) Send(ctx context.Context, subject, body string) error {
	if m.cfg.Host == "" {
		return errNoMailHost
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	addr := net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connecting to SMTP %s: %w", addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, m.cfg.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("SMTP %s greeting: %w", addr, err)
	}
	defer c.Close()
	if err := c.Hello(helloName()); err != nil {
		return fmt.Errorf("SMTP EHLO: %w", err)
	}
	offered, _ := c.Extension("STARTTLS")
	switch m.cfg.StartTLS {
	case "true":
		if !offered {
			return fmt.Errorf("SMTP %s does not offer STARTTLS, which CONN_MAIL_SMTP_STARTTLS=true requires", addr)
		}
		fallthrough
	case "auto":
		if offered {
			tc := &tls.Config{MinVersion: tls.VersionTLS12}
			if m.cfg.TLSConfig != nil {
				tc = m.cfg.TLSConfig.Clone()
			}
			if tc.ServerName == "" {
				tc.ServerName = m.cfg.Host
			}
			if err := c.StartTLS(tc); err != nil {
				return fmt.Errorf("SMTP STARTTLS: %w", err)
			}
		}
	}
	if m.cfg.Username != "" {
		// PlainAuth refuses to send the password over an unencrypted link
		// to anything but localhost.
		if err := c.Auth(smtp.PlainAuth("", m.cfg.Username, m.cfg.Password, m.cfg.Host)); err != nil {
			return fmt.Errorf("SMTP AUTH PLAIN as %q: %w", m.cfg.Username, scrub(err, m.cfg.Password))
		}
	}
	if err := c.Mail(m.cfg.From); err != nil {
		return fmt.Errorf("SMTP MAIL FROM: %w", err)
	}
	for _, r := range m.cfg.Recipients {
		if err := c.Rcpt(r); err != nil {
			return fmt.Errorf("SMTP RCPT TO %s: %w", r, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if _, err := w.Write(m.message(subject, body)); err != nil {
		w.Close()
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("SMTP end of DATA: %w", err)
	}
	return c.Quit()
}

var errNoMailHost = errors.New("no SMTP host configured (CONN_MAIL_SMTP_HOST)")

func (m *mailer) message(subject, body string) []byte {
	var b bytes.Buffer
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	domain := "localhost"
	if i := strings.LastIndexByte(m.cfg.From, '@'); i >= 0 {
		domain = m.cfg.From[i+1:]
	}
	fmt.Fprintf(&b, "From: %s\r\n", m.cfg.From)
	fmt.Fprintf(&b, "To: %s\r\n", strings.Join(m.cfg.Recipients, ", "))
	fmt.Fprintf(&b, "Subject: %s\r\n", oneLine(subject))
	fmt.Fprintf(&b, "Date: %s\r\n", m.now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n"))
	b.WriteString("\r\n")
	return b.Bytes()
}

func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

func helloName() string {
	return "localhost"
}

// scrub removes a secret from an error's text (some servers echo the
// credentials they refuse).
func scrub(err error, secret string) error {
	if secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	// A new error, not %w: errors.As must not reach the error whose text
	// holds the secret.
	return errors.New(strings.ReplaceAll(err.Error(), secret, "***"))
}
