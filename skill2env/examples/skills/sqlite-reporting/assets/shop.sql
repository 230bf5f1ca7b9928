-- Sample shop database. Money is stored in integer cents.
-- Build a file with: sqlite3 shop.db < shop.sql   (or pass this file to --db directly)
PRAGMA foreign_keys = ON;

CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT,                      -- ISO 3166 alpha-2, NULL when unknown
  created_at TEXT NOT NULL           -- YYYY-MM-DD (UTC)
);

CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  price_cents INTEGER NOT NULL       -- current list price
);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  ordered_at TEXT NOT NULL,          -- YYYY-MM-DD (UTC)
  status TEXT NOT NULL CHECK (status IN ('paid', 'refunded', 'cancelled'))
);
CREATE INDEX idx_orders_customer ON orders(customer_id);

CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL, -- price actually charged (may differ from list price)
  PRIMARY KEY (order_id, product_id)
);

INSERT INTO customers VALUES
  (1, 'Ada Lovelace', 'GB', '2023-11-02'),
  (2, 'Grace Hopper', 'US', '2023-12-15'),
  (3, 'Alan Turing', 'GB', '2024-01-05'),
  (4, 'Katherine Johnson', 'US', '2024-01-20'),
  (5, 'Edsger Dijkstra', 'NL', '2024-02-11'),
  (6, 'Barbara Liskov', NULL, '2024-03-01');

INSERT INTO products VALUES
  (1, 'KB-01', 'Mechanical keyboard', 'peripherals', 8900),
  (2, 'MS-01', 'Wireless mouse', 'peripherals', 2500),
  (3, 'MN-27', '27in monitor', 'displays', 24900),
  (4, 'CB-USB', 'USB-C cable', 'accessories', 1200),
  (5, 'DK-01', 'Docking station', 'accessories', 14900);

INSERT INTO orders VALUES
  (101, 1, '2024-01-03', 'paid'),
  (102, 2, '2024-01-17', 'paid'),
  (103, 3, '2024-01-28', 'cancelled'),
  (104, 1, '2024-02-05', 'paid'),
  (105, 4, '2024-02-14', 'refunded'),
  (106, 5, '2024-02-21', 'paid'),
  (107, 2, '2024-02-29', 'paid'),
  (108, 3, '2024-03-04', 'paid'),
  (109, 4, '2024-03-12', 'paid'),
  (110, 1, '2024-03-30', 'paid'),
  (111, 5, '2024-03-31', 'paid'),
  (112, 2, '2024-04-02', 'paid');

INSERT INTO order_items VALUES
  (101, 1, 1, 8900), (101, 4, 2, 1200),
  (102, 3, 2, 24900),
  (103, 5, 1, 14900),
  (104, 2, 1, 2500), (104, 4, 1, 1200),
  (105, 3, 1, 24900),
  (106, 5, 1, 13900), (106, 1, 1, 8900),
  (107, 4, 3, 1200),
  (108, 3, 1, 24900), (108, 2, 1, 2500),
  (109, 1, 2, 8900),
  (110, 5, 1, 14900),
  (111, 4, 1, 1200),
  (112, 2, 2, 2500);
