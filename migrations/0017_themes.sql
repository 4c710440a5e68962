-- Themes made in the merchant portal: a merchant's own look for the payment pages, named by a
-- themeKey the API takes like the six built-in palettes' names. The logo is kept here as the bytes
-- that were uploaded (a PNG or a JPEG, checked by its first bytes, at most 256 KB), with its type.
CREATE TABLE themes (
  theme_key            text PRIMARY KEY CHECK (length(theme_key) BETWEEN 1 AND 64),
  merchant_id          text NOT NULL REFERENCES merchants (id),
  name                 text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
  accent_color         text NOT NULL CHECK (accent_color ~ '^#[0-9a-f]{6}$'),
  background_color     text NOT NULL CHECK (background_color ~ '^#[0-9a-f]{6}$'),
  button_shape         text NOT NULL CHECK (button_shape IN ('rounded', 'square', 'pill')),
  logo                 bytea CHECK (octet_length(logo) BETWEEN 1 AND 262144),
  logo_type            text CHECK (logo_type IN ('image/png', 'image/jpeg')),
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  CHECK ((logo IS NULL) = (logo_type IS NULL))
);
CREATE INDEX themes_merchant_idx ON themes (merchant_id, created_at);
