-- What the receiver answered (issue #32, Svix's bar): the first 1,024 characters of each attempt's
-- response body, so a developer sees why an attempt failed without looking at the receiver's logs.
-- NULL for an attempt with no answer (a timeout, a refused connection) or an empty one.
ALTER TABLE webhook_attempts ADD COLUMN response_body text;
