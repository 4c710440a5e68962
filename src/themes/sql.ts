import type { Queryable } from '../db/database.js';

// A merchant's themes (migration 0017). Lists and pages read everything but the logo's bytes; only
// the logo's own route reads those.

export interface ThemeRow {
  themeKey: string;
  merchantId: string;
  name: string;
  accentColor: string;
  backgroundColor: string;
  buttonShape: string;
  logoType: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `theme_key AS "themeKey", merchant_id AS "merchantId", name, accent_color AS "accentColor", background_color AS "backgroundColor",
  button_shape AS "buttonShape", logo_type AS "logoType", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** What a theme is written with: its look, its logo's bytes and type, and when. */
type ThemeWrite = Pick<ThemeRow, 'themeKey' | 'merchantId' | 'name' | 'accentColor' | 'backgroundColor' | 'buttonShape' | 'logoType'> & {
  logo: Buffer | null;
  at: Date;
};

export async function insertTheme(db: Queryable, t: ThemeWrite): Promise<ThemeRow> {
  const { rows } = await db.query<ThemeRow>(
    `INSERT INTO themes (theme_key, merchant_id, name, accent_color, background_color, button_shape, logo, logo_type, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
    [t.themeKey, t.merchantId, t.name, t.accentColor, t.backgroundColor, t.buttonShape, t.logo, t.logoType, t.at],
  );
  return rows[0] as ThemeRow;
}

/** Updates a merchant's theme; `keepLogo` leaves the logo as it is, else it becomes `logo` (null removes it). */
export async function updateTheme(db: Queryable, t: ThemeWrite & { keepLogo: boolean }): Promise<ThemeRow | undefined> {
  const { rows } = await db.query<ThemeRow>(
    `UPDATE themes SET name = $3, accent_color = $4, background_color = $5, button_shape = $6,
            logo = CASE WHEN $7::boolean THEN logo ELSE $8::bytea END,
            logo_type = CASE WHEN $7::boolean THEN logo_type ELSE $9::text END,
            updated_at = $10
      WHERE theme_key = $1 AND merchant_id = $2 RETURNING ${COLUMNS}`,
    [t.themeKey, t.merchantId, t.name, t.accentColor, t.backgroundColor, t.buttonShape, t.keepLogo, t.logo, t.logoType, t.at],
  );
  return rows[0];
}

export async function deleteTheme(db: Queryable, merchantId: string, themeKey: string): Promise<ThemeRow | undefined> {
  const { rows } = await db.query<ThemeRow>(`DELETE FROM themes WHERE theme_key = $1 AND merchant_id = $2 RETURNING ${COLUMNS}`, [themeKey, merchantId]);
  return rows[0];
}

/** A merchant's theme; `forUpdate` locks it until the caller's transaction ends (an edit reads what it changes). */
export async function findTheme(db: Queryable, merchantId: string, themeKey: string, opts: { forUpdate?: boolean } = {}): Promise<ThemeRow | undefined> {
  const { rows } = await db.query<ThemeRow>(
    `SELECT ${COLUMNS} FROM themes WHERE theme_key = $1 AND merchant_id = $2${opts.forUpdate === true ? ' FOR UPDATE' : ''}`,
    [themeKey, merchantId],
  );
  return rows[0];
}

/** A theme by its key alone: the stylesheet and logo routes serve any theme whose key they are given. */
export async function findThemeByKey(db: Queryable, themeKey: string): Promise<ThemeRow | undefined> {
  const { rows } = await db.query<ThemeRow>(`SELECT ${COLUMNS} FROM themes WHERE theme_key = $1`, [themeKey]);
  return rows[0];
}

export async function listThemes(db: Queryable, merchantId: string): Promise<ThemeRow[]> {
  const { rows } = await db.query<ThemeRow>(`SELECT ${COLUMNS} FROM themes WHERE merchant_id = $1 ORDER BY created_at, theme_key`, [merchantId]);
  return rows;
}

export async function findLogo(db: Queryable, themeKey: string): Promise<{ logo: Buffer; logoType: string } | undefined> {
  const { rows } = await db.query<{ logo: Buffer; logoType: string }>(
    'SELECT logo, logo_type AS "logoType" FROM themes WHERE theme_key = $1 AND logo IS NOT NULL',
    [themeKey],
  );
  return rows[0];
}
