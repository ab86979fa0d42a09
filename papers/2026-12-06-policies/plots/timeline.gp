set terminal svg size 900,240 dynamic font 'sans,11' background rgb 'white'
set output 'timeline.svg'
set title 'pingpong 1 200000, erts, 2 workers (the latest events; 1197012 earlier ones dropped)' noenhanced
set xlabel 'time since the first slice shown (ms)'
set yrange [3.6:-0.6]
set ytics ('worker 0' 0, 'worker 1' 1, 'collector 0' 2, 'collector 1' 3)
unset key
set grid xtics
set style fill solid 1.0 noborder
plot 'timeline.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.35):4 with boxxyerror lc rgb variable
