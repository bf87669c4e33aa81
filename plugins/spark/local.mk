# plugins/spark
