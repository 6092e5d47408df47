package dev.collsim.scenarios.views;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.explain.Explain.Run;
import java.util.ArrayList;
import java.util.List;

/**
 * The teaching view in the HTML report, a lesson that opens at step 0: the ranks inside their nodes
 * (each node a box, its ranks on a circle), the NVSwitch in a node where NVLS reduces in it and the
 * SHARP switch below the nodes where CollNet reduces in the network; one step of the schedule at a
 * time, every transfer of the step as an arrow coloured by whether the receiver adds it (reduce) or
 * keeps it (copy), with a packet that moves along each arrow, all of the step's together; under each
 * rank the sum of inputs its piece holds ("r0+r2+r3"). Play, pause, step, reset and a slider move
 * through the steps, with the schedule chart (each transfer a bar on its sender's row, axes fixed)
 * and the table's rows in step. {@code #step=N} in the address opens it at step N.
 */
public final class ExplainHtml {
    private ExplainHtml() {}

    public static void add(HtmlReport report, Table table, Run run) {
        List<List<Object>> rows = table.rows();
        List<String> senders = new ArrayList<>();
        for (List<Object> r : rows) {
            if (!senders.contains((String) r.get(2))) {
                senders.add((String) r.get(2));
            }
        }
        senders.sort(null);
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.put("collsimGantt", true);
        o.putObject("title").put("text", "the schedule: each transfer from its start to its delivery, on its sender's row (us)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("grid").put("containLabel", true).put("left", 20).put("right", 30).put("top", 50);
        // Stable axes while the step-through adds transfers: the whole schedule's span from the start.
        double last = rows.stream().mapToDouble(r -> (Double) r.get(7)).max().orElse(0);
        o.putObject("xAxis").put("type", "value").put("name", "us").put("min", 0).put("max", Math.ceil(last));
        ArrayNode cats = o.putObject("yAxis").put("type", "category").put("name", "sender").putArray("data");
        senders.forEach(cats::add);
        ObjectNode s = o.putArray("series").addObject().put("type", "custom").put("name", "transfers");
        s.putObject("encode").putArray("x").add(1).add(2);
        s.withObject("/encode").put("y", 0);
        ArrayNode data = s.putArray("data");
        ArrayNode lesson = lessonRows(rows, run);
        for (int k = 0; k < rows.size(); k++) {
            List<Object> r = rows.get(k);
            ObjectNode item = data.addObject().put("name", lesson.get(k).get("caption").asText());
            item.putArray("value").add(senders.indexOf((String) r.get(2))).add((Double) r.get(6)).add((Double) r.get(7));
        }
        int index = report.chartCount();
        report.heading("Step through the schedule");
        table.preamble().stream().filter(n -> !n.isEmpty()).limit(1).forEach(report::text);
        ObjectNode lessonData = HtmlReport.json().createObjectNode();
        lessonData.set("rows", lesson);
        lessonData.set("frames", frames(rows));
        ArrayNode nodes = lessonData.putArray("nodes");
        for (int[] node : run.comm().nodeRanks()) {
            ArrayNode ranks = nodes.addArray();
            for (int r : node) {
                ranks.add("r" + r);
            }
        }
        String json;
        try {
            json = HtmlReport.json().writeValueAsString(lessonData);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        int frames = lessonData.get("frames").size();
        report.raw("<div><button id=\"play\">play</button> <button id=\"pause\">pause</button> <button id=\"step\">step</button>"
                + " <button id=\"reset\">reset</button> <input id=\"slider\" type=\"range\" min=\"0\" max=\"" + frames
                + "\" value=\"0\" style=\"width:40%\"> <span id=\"caption\">step 0 of " + frames + "</span></div>"
                + "<p class=\"note\"><span style=\"color:" + REDUCE + "\">&#9632; reduce</span> (the receiver adds what arrives to its"
                + " piece) &nbsp; <span style=\"color:" + COPY + "\">&#9632; copy</span> (the receiver keeps what arrives);"
                + " a step's transfers move together; under each rank, the sum its piece holds</p>"
                + "<svg id=\"lesson\" width=\"640\" height=\"380\" role=\"img\" aria-label=\"the nodes, their ranks and the step's transfers\"></svg>");
        report.chart(o, 120 + 40 * senders.size());
        report.raw("<div id=\"explain-table\">");
        report.table(table);
        report.raw("</div><script>" + SCRIPT.replace("INDEX", String.valueOf(index)).replace("LESSON", json)
                .replace("REDUCE", REDUCE).replace("COPY", COPY) + "</script>");
    }

    /**
     * The lesson's steps: runs of consecutive rows (in start order) of one schedule step and one action,
     * each as {@code [first row, end row)}. The transfers of a step run at the same time, so they move
     * together; a step's phases (CollNet's scatter, its SHARP reductions, its gather) follow each other.
     */
    private static ArrayNode frames(List<List<Object>> rows) {
        ArrayNode out = HtmlReport.json().createArrayNode();
        int first = 0;
        for (int k = 1; k <= rows.size(); k++) {
            if (k == rows.size() || !rows.get(k).get(0).equals(rows.get(first).get(0)) || !rows.get(k).get(8).equals(rows.get(first).get(8))) {
                out.addArray().add(first).add(k);
                first = k;
            }
        }
        return out;
    }

    private static final String REDUCE = "#e8710a";
    private static final String COPY = "#1a73e8";

    /**
     * Each transfer as the lesson reads it: sender, receiver, the piece of the buffer, what it does,
     * whose inputs it carries, its caption; an in-switch or in-network one also the switch it goes
     * through ("sw" and the node, or "sharp") and the ranks that send into it and receive from it.
     */
    private static ArrayNode lessonRows(List<List<Object>> rows, Run run) {
        Schedule s = run.result().schedule();
        int[] order = ExplainView.order(run);
        int[] nvls = run.comm().placement().nvlsSwitches();
        int[] sharp = run.comm().placement().sharpSwitches();
        int[][] nodes = run.comm().nodeRanks();
        int[] nodeOf = new int[run.comm().nRanks()];
        for (int k = 0; k < nodes.length; k++) {
            for (int r : nodes[k]) {
                nodeOf[r] = k;
            }
        }
        ArrayNode out = HtmlReport.json().createArrayNode();
        for (int k = 0; k < rows.size(); k++) {
            List<Object> r = rows.get(k);
            int x = order[k];
            String label = "step " + r.get(0) + ", channel " + r.get(1) + ": " + r.get(2) + " -> " + r.get(3) + ", bytes " + r.get(4)
                    + ", " + r.get(8) + (r.get(9).toString().isEmpty() ? "" : ", carrying " + r.get(9));
            ObjectNode row = out.addObject().put("src", (String) r.get(2)).put("dst", (String) r.get(3)).put("piece", r.get(4).toString())
                    .put("action", r.get(8).toString()).put("carries", r.get(9).toString()).put("caption", label);
            TransferKind kind = s.kind(x);
            if (kind != TransferKind.P2P && kind != TransferKind.LOCAL_COPY) {
                int anchor = s.anchor(x);
                boolean network = kind == TransferKind.NETWORK_ALLREDUCE;
                int[] group = network ? sharp : nvls;
                row.put("hub", network ? "sharp" : "sw" + nodeOf[anchor]);
                ArrayNode members = row.putArray("members");
                for (int m = 0; m < nodeOf.length; m++) {
                    if (group != null && group[m] == group[anchor]) {
                        members.add("r" + m);
                    }
                }
                row.put("up", kind != TransferKind.SWITCH_MULTICAST ? "all" : "r" + anchor);
                row.put("down", kind != TransferKind.SWITCH_REDUCE ? "all" : "r" + anchor);
            }
        }
        return out;
    }

    /**
     * The lesson's script: the nodes as boxes with their ranks on a circle inside, the switches that
     * reduce (an NVSwitch in its node, the SHARP switch below the nodes), one step's transfers as arrows
     * coloured by what they do with a packet moving along each, all started at the same instant of the
     * drawing's clock (an in-switch operation's packets go up to the switch, then down from it), each
     * rank's piece as the sum of the inputs it holds, the schedule chart and the table's rows in step.
     * Opens at step 0, or at {@code #step=N}.
     */
    private static final String SCRIPT = """
            window.addEventListener('load',function(){
            var L=LESSON,rows=L.rows,frames=L.frames,nodes=L.nodes,chart=window.collsimCharts[INDEX],all=chart?chart.getOption().series[0].data.slice():[];
            var NS='http://www.w3.org/2000/svg',svg=document.getElementById('lesson'),LEG=0.6;
            var ranks=[];nodes.forEach(function(n){n.forEach(function(r){ranks.push(r);});});
            var hubs=[];rows.forEach(function(r){if(r.hub&&hubs.indexOf(r.hub)<0){hubs.push(r.hub);}});
            var sharp=hubs.indexOf('sharp')>=0,P=nodes[0].length,N=nodes.length;
            var R=P===1?0:P===2?45:Math.max(60,15*P),box=2*R+(P===1?64:90),per=N<=4?N:Math.min(8,N),gap=N>1?40:0;
            // Nodes of one GPU each stand on a circle of their own, so that PAT's and the ring's distances read as chords, not overlapping arrows on a row.
            var circle=P===1&&N>2,RN=Math.max(110,(box+gap)*N/(2*Math.PI));
            var W=circle?Math.max(640,2*RN+box+40):Math.max(640,per*box+(per-1)*gap+40),
            H=(circle?2*RN+box+60:Math.ceil(N/per)*(box+30)+50)+(sharp?90:0),left=(W-(per*box+(per-1)*gap))/2;
            svg.setAttribute('width',W);svg.setAttribute('height',H);
            var pos={},centers=nodes.map(function(n,k){var a=-Math.PI/2+2*Math.PI*k/N;
            return circle?[W/2+RN*Math.cos(a),30+box/2+RN+RN*Math.sin(a)]:[left+(k%per)*(box+gap)+box/2,30+Math.floor(k/per)*(box+30)+box/2];});
            nodes.forEach(function(n,k){var c=centers[k];n.forEach(function(r,i){var a=-Math.PI/2+2*Math.PI*i/n.length;
            pos[r]=[c[0]+R*Math.cos(a),c[1]+R*Math.sin(a)];});pos['sw'+k]=c;});
            pos.sharp=[W/2,H-60];
            var pairs=[],seenPair={};rows.forEach(function(r){if(r.hub||r.src===r.dst){return;}var k=r.src+'>'+r.dst;
            if(!seenPair[k]){seenPair[k]=1;pairs.push([r.src,r.dst]);}});
            var pieces=[];rows.forEach(function(r){if(pieces.indexOf(r.piece)<0){pieces.push(r.piece);}});
            function el(t,at,txt,parent){var e=document.createElementNS(NS,t);for(var k in at){e.setAttribute(k,at[k]);}
            if(txt!==undefined&&txt!==null){e.textContent=txt;}(parent||svg).appendChild(e);return e;}
            function num(n){return parseInt(n.slice(1));}
            function set(text){return text?text.split('+').filter(function(x){return x;}):[];}
            function sum(s){var v=s.map(num).sort(function(a,b){return a-b;}),out=[],i=0;while(i<v.length){var j=i;
            while(j+1<v.length&&v[j+1]===v[j]+1){j++;}out.push(j-i>=2?'r'+v[i]+'..r'+v[j]:v.slice(i,j+1).map(function(x){return 'r'+x;}).join('+'));
            i=j+1;}return out.join('+');}
            function receivers(r){return r.hub?(r.down==='all'?r.members:[r.down]):[r.dst];}
            function state(f){var b={};ranks.forEach(function(n){b[n]={};pieces.forEach(function(p){b[n][p]=[n];});});
            var end=f>0?frames[f-1][1]:0;for(var i=0;i<end;i++){var r=rows[i],c=set(r.carries);
            if(r.hub){receivers(r).forEach(function(n){b[n][r.piece]=c.slice();});}
            else if(r.src===r.dst){}
            else if(r.action.indexOf('reduce')>=0){c.forEach(function(x){if(b[r.dst][r.piece].indexOf(x)<0){b[r.dst][r.piece].push(x);}});}
            else{b[r.dst][r.piece]=c.slice();}}return b;}
            // A leg runs a little to the right of the straight line, so that the way up to a switch and the way down stay apart.
            function leg(g,a,z,color,width,begin){var dx=z[0]-a[0],dy=z[1]-a[1],d=Math.max(1,Math.hypot(dx,dy)),s=24/d,ox=-dy/d*4,oy=dx/d*4;
            var x1=a[0]+dx*s+ox,y1=a[1]+dy*s+oy,x2=z[0]-dx*s+ox,y2=z[1]-dy*s+oy;
            el('line',{x1:x1,y1:y1,x2:x2,y2:y2,stroke:color,'stroke-width':width,'marker-end':'url(#head)'},null,g);
            var dot=el('circle',{class:'packet',r:5,cx:0,cy:0,fill:color,stroke:'#fff',opacity:begin>0?0:1},null,g);
            el('animateMotion',{begin:begin+'s',dur:LEG+'s',fill:'freeze',path:'M'+x1+','+y1+' L'+x2+','+y2},null,dot);
            if(begin>0){el('set',{attributeName:'opacity',to:1,begin:begin+'s',fill:'freeze'},null,dot);}}
            var shown=0,timer=null;
            function draw(f){while(svg.firstChild){svg.removeChild(svg.firstChild);}
            var defs=el('defs',{}),m=el('marker',{id:'head',markerWidth:8,markerHeight:8,refX:6,refY:3,orient:'auto'},null,defs);
            el('path',{d:'M0,0 L6,3 L0,6 z',fill:'#444'},null,m);
            var fr=f>0?frames[f-1]:[0,0],cur=rows.slice(fr[0],fr[1]),b=state(f),active={},got={},done=0;
            cur.forEach(function(r){if(r.hub){r.members.forEach(function(n){active[n]=1;});}else{active[r.src]=1;active[r.dst]=1;}
            receivers(r).forEach(function(n){got[n]=r.piece;});});
            pieces.forEach(function(p){if(ranks.every(function(n){return b[n][p].length===ranks.length;})){done++;}});
            nodes.forEach(function(n,k){var c=centers[k];el('rect',{class:'node','data-node':k,x:c[0]-box/2,y:c[1]-box/2,width:box,height:box,rx:10,
            fill:'#f6f8fb',stroke:'#8a99ad'});el('text',{x:c[0]-box/2+8,y:c[1]-box/2+15,'font-size':11,fill:'#556'},'node '+k);});
            // The algorithm's pattern: every pair that ever exchanges data, faint (the ring, the chains and trees, PAT's distances).
            pairs.forEach(function(p){var a=pos[p[0]],z=pos[p[1]];el('line',{class:'edge',x1:a[0],y1:a[1],x2:z[0],y2:z[1],stroke:'#d5d9df','stroke-width':1});});
            hubs.forEach(function(h){var p=pos[h],w=h==='sharp'?120:90;if(h==='sharp'){ranks.forEach(function(n){el('line',{x1:pos[n][0],y1:pos[n][1],
            x2:p[0],y2:p[1],stroke:'#eee','stroke-width':1});});}
            el('rect',{class:'switch','data-switch':h,x:p[0]-w/2,y:p[1]-16,width:w,height:32,rx:6,fill:'#ececec',stroke:'#666'});
            el('text',{x:p[0],y:p[1]+4,'text-anchor':'middle','font-size':12},h==='sharp'?'SHARP switch':'NVSwitch');});
            var g=el('g',{id:'frame','data-step':String(f),'data-transfers':String(cur.length)});
            cur.forEach(function(r){var color=r.action.indexOf('reduce')>=0?'REDUCE':'COPY';
            if(r.hub){var h=pos[r.hub];(r.up==='all'?r.members:[r.up]).forEach(function(n){leg(g,pos[n],h,'REDUCE',2,0);});
            receivers(r).forEach(function(n){leg(g,h,pos[n],'COPY',2,LEG);});}
            else if(r.src!==r.dst){leg(g,pos[r.src],pos[r.dst],color,3,0);}});
            ranks.forEach(function(n){var p=pos[n];
            el('circle',{class:'rank',cx:p[0],cy:p[1],r:20,fill:active[n]?'#fff3e0':'#fff',stroke:'#333','stroke-width':active[n]?2:1});
            el('text',{x:p[0],y:p[1]+5,'text-anchor':'middle','font-size':13},n);
            var piece=got[n]||(cur.length?cur[0].piece:pieces[0]);
            el('text',{x:p[0],y:p[1]+34,'text-anchor':'middle','font-size':10,fill:'#333'},sum(b[n][piece]));});
            el('text',{x:8,y:H-8,'font-size':12,fill:'#555'},'under each rank: the sum it holds of the piece it received in this step;'
            +' pieces every rank holds whole: '+done+' of '+pieces.length);
            if(svg.setCurrentTime){svg.setCurrentTime(0);}}
            function show(f){shown=Math.max(0,Math.min(frames.length,f));var end=shown>0?frames[shown-1][1]:0,start=shown>0?frames[shown-1][0]:0;
            if(chart){chart.setOption({series:[{data:all.slice(0,end)}]});}
            document.getElementById('slider').value=String(shown);
            var n=end-start;document.getElementById('caption').textContent='step '+shown+' of '+frames.length+(shown===0?': press step or play'
            :n===1?': '+rows[start].caption:': '+n+' transfers at once, '+rows[start].caption+(n>1?' and '+(n-1)+' more':''));
            var trs=document.querySelectorAll('#explain-table tr');for(var i=1;i<trs.length;i++){trs[i].style.background=i>start&&i<=end?'#fff3c4':'';}
            draw(shown);}
            document.getElementById('step').onclick=function(){show(shown>=frames.length?1:shown+1);};
            document.getElementById('reset').onclick=function(){if(timer){clearInterval(timer);timer=null;}show(0);};
            document.getElementById('pause').onclick=function(){if(timer){clearInterval(timer);timer=null;}};
            document.getElementById('play').onclick=function(){if(timer){return;}if(shown>=frames.length){show(0);}
            timer=setInterval(function(){if(shown>=frames.length){clearInterval(timer);timer=null;return;}show(shown+1);},1500);};
            document.getElementById('slider').oninput=function(e){show(parseInt(e.target.value));};
            var at=/step=(\\d+)/.exec(location.hash);show(at?parseInt(at[1]):0);
            });""";
}
