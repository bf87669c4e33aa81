# reservation
