-- The quantities a shopper chose on the payment page of a link whose items have an adjustable
-- quantity (docs/rules.md, Adjustable quantities): each item with the quantity chosen and its
-- amount at it, kept with the payment and with the link's submission; and the chosen quantities
-- kept on a 3-D Secure step until the payment it finishes is recorded. Null: the link offers no
-- choice, and the items were paid as the link gives them.
-- Only widens: a process of the previous release keeps working on a database that has it.
ALTER TABLE payments ADD COLUMN IF NOT EXISTS chosen_items jsonb;
ALTER TABLE payment_link_submissions ADD COLUMN IF NOT EXISTS chosen_items jsonb;
ALTER TABLE three_d_challenges ADD COLUMN IF NOT EXISTS item_quantities jsonb;
