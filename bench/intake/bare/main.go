// Command bare is the intake benchmark's ceiling: a Fiber v2 server
// configured like the sidecar (body limit, no prefork) whose intake route
// answers 200 without parsing or storing anything. bench/intake/run.sh
// measures it next to `sluice serve` to report the ratio.
package main

import (
	"flag"
	"log"

	"github.com/gofiber/fiber/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	flag.Parse()
	app := fiber.New(fiber.Config{BodyLimit: 1 << 20, DisableStartupMessage: true, Prefork: false})
	ok := func(c *fiber.Ctx) error {
		c.Status(fiber.StatusOK)
		return nil
	}
	app.Post("/webhook/notifications", ok)
	app.Post("/webhooks/notifications", ok)
	log.Fatal(app.Listen(*addr))
}
