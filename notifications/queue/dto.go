package queue

// DTO is the management API's view of a record, its JSON as
// GET /failed-notifications and the other management endpoints answer it
// (docs/records-api.md#management).
type DTO struct {
	NotificationToken string  `json:"notificationToken"`
	Type              string  `json:"type"`
	Target            string  `json:"target"`
	Program           *string `json:"program"`
	RetryCounter      int     `json:"retryCounter"`
	CreationDate      *string `json:"creationDate"`
	Status            Status  `json:"status"`
	Source            string  `json:"source"`
}

// ToDTO converts a record; a record without a program has a null one.
func ToDTO(r *Record) DTO {
	var program *string
	if r.Program != "" {
		program = &r.Program
	}
	return DTO{NotificationToken: r.WebhookToken, Type: r.NotificationType, Target: r.ObjectToken,
		Program: program, RetryCounter: r.RetryCounter, CreationDate: DateText(r.CreationDate), Status: r.Status,
		Source: r.SourceName()}
}
