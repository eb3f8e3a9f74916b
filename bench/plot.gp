# Ratio plot of a bench/run.sh report (gnuplot -e "datafile=...; outfile=...;
# subtitle=...; nrows=N" bench/plot.gp, N the number of data lines). datafile lines: "label" vs_ext4 vs_xfs, where
# each value is NOVA's speedup (>1: NOVA better; latencies and times are
# inverted so that the direction is the same on every bar).
set terminal pngcairo size 1300,850 font "sans,10" noenhanced
set output outfile
if (nrows == 0) {
	unset border; unset tics; unset key
	set label 1 "No ratios: NOVA did not run (see the report)" at screen 0.5,0.5 center font "sans,14"
	set title "NOVA speedup vs ext4-dax and xfs-dax (" . subtitle . ")"
	plot [0:1] [0:1] NaN notitle
	exit
}
set title "NOVA speedup vs ext4-dax and xfs-dax (" . subtitle . "; >1: NOVA better)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -45 scale 0
set logscale y 2
set ylabel "speedup (log scale)"
set grid ytics
set key top right
set bmargin 17
# Rotated labels run right of their bar: room for the last ones.
set rmargin 24
plot datafile using 2:xtic(1) title "vs ext4-dax", \
     '' using 3 title "vs xfs-dax", \
     1 with lines lc rgb "black" dt 2 notitle
