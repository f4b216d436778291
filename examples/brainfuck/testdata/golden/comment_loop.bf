[comment loop: nothing runs here, but it is still translated . , + - < >]
+>>+++[<[->>+<<]>+>-]<<.
