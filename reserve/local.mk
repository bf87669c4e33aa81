# reserve
