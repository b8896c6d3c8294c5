// EPD text of a position.
MATCH (n:Position {key: $key})
RETURN n.epd AS epd
