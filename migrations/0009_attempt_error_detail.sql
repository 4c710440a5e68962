-- Why an attempt failed, in words the merchant can act on without the operator's logs: the TLS
-- certificate error (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, HOSTNAME_MISMATCH, ...), the
-- connection error (ECONNREFUSED, ENOTFOUND, ...), or the time limit. Null on success, for a failed
-- status (the status and body say it), and for attempts recorded before this column existed.
ALTER TABLE webhook_attempts ADD COLUMN error_detail text;
